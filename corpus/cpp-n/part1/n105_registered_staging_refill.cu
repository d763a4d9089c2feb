// case: Driver-API batch loader page-locks a std::vector with cuMemHostRegister and streams batches through it with cuMemcpyHtoDAsync; from the second batch on, the host refills the registered staging vector while the previous batch's asynchronous copy from it may still be reading (only one cuStreamSynchronize after the loop).
// expect: missing_sync=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* msg_ = nullptr;                                               \
      cuGetErrorString(r_, &msg_);                                              \
      fprintf(stderr, "%s failed: %s\n", #call, msg_ ? msg_ : "unknown");       \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

__global__ void normalize_rows(const float* in, float* out, int rows, int cols) {
  int r = blockIdx.x;
  if (r >= rows) return;
  __shared__ float s_norm;
  if (threadIdx.x == 0) {
    float acc = 0.f;
    for (int c = 0; c < cols; ++c) acc += in[r * cols + c] * in[r * cols + c];
    s_norm = rsqrtf(acc + 1e-6f);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[r * cols + c] = in[r * cols + c] * s_norm;
}

int main() {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));

  constexpr int kRows = 4096, kCols = 256, kBatches = 8;
  const size_t n = size_t(kRows) * kCols;
  const size_t bytes = n * sizeof(float);

  std::vector<float> dataset(n * kBatches);
  for (size_t i = 0; i < dataset.size(); ++i) dataset[i] = float((i * 2654435761u) % 256);

  std::vector<float> staging(n);
  CU_CHECK(cuMemHostRegister(staging.data(), bytes, 0));

  CUdeviceptr d_in, d_out;
  CU_CHECK(cuMemAlloc(&d_in, bytes));
  CU_CHECK(cuMemAlloc(&d_out, bytes));
  float* h_out = nullptr;
  CU_CHECK(cuMemAllocHost((void**)&h_out, bytes * kBatches));

  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  for (int b = 0; b < kBatches; ++b) {
    for (size_t i = 0; i < n; ++i) staging[i] = dataset[b * n + i] * (1.0f / 255.0f);  // EXPECT: missing_sync
    CU_CHECK(cuMemcpyHtoDAsync(d_in, staging.data(), bytes, stream));
    normalize_rows<<<kRows, 128, 0, stream>>>((const float*)d_in, (float*)d_out, kRows, kCols);
    CU_CHECK(cuMemcpyDtoHAsync(h_out + b * n, d_out, bytes, stream));
  }
  CU_CHECK(cuStreamSynchronize(stream));

  double total = 0.0;
  for (size_t i = 0; i < n * kBatches; ++i) total += h_out[i];
  printf("sum of normalized batches: %.4f\n", total);

  CU_CHECK(cuMemHostUnregister(staging.data()));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuMemFree(d_in));
  CU_CHECK(cuMemFree(d_out));
  CU_CHECK(cuMemFreeHost(h_out));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
