// case: Driver-API pipeline with correct pairings: a write-combined cuMemHostAlloc buffer used only for host writes and uploads, a portable cuMemHostAlloc buffer for the readback read after cuStreamSynchronize, a cuMemAllocAsync scratch released with cuMemFree only after the stream is synchronized (allowed), and every release matching its allocator.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

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

__global__ void prefix_stage(const float* in, float* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = in[i] * in[i];
}

__global__ void finish_stage(const float* tmp, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tmp[i] + (i > 0 ? tmp[i - 1] : 0.0f);
}

int main() {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));
  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  const int n = 1 << 22;
  const size_t bytes = size_t(n) * sizeof(float);
  float *h_upload = nullptr, *h_result = nullptr;
  CU_CHECK(cuMemHostAlloc((void**)&h_upload, bytes, CU_MEMHOSTALLOC_WRITECOMBINED));
  CU_CHECK(cuMemHostAlloc((void**)&h_result, bytes, CU_MEMHOSTALLOC_PORTABLE));
  CUdeviceptr d_in, d_out, d_tmp;
  CU_CHECK(cuMemAlloc(&d_in, bytes));
  CU_CHECK(cuMemAlloc(&d_out, bytes));
  CU_CHECK(cuMemAllocAsync(&d_tmp, bytes, stream));

  for (int i = 0; i < n; ++i) h_upload[i] = float(i % 512) / 512.0f;
  CU_CHECK(cuMemcpyHtoDAsync(d_in, h_upload, bytes, stream));
  prefix_stage<<<(n + 255) / 256, 256, 0, stream>>>((const float*)d_in, (float*)d_tmp, n);
  finish_stage<<<(n + 255) / 256, 256, 0, stream>>>((const float*)d_tmp, (float*)d_out, n);
  CU_CHECK(cuMemcpyDtoHAsync(h_result, d_out, bytes, stream));
  CU_CHECK(cuStreamSynchronize(stream));

  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += h_result[i];
  printf("sum = %.3f\n", sum);

  CU_CHECK(cuMemFree(d_tmp));
  CU_CHECK(cuMemFree(d_in));
  CU_CHECK(cuMemFree(d_out));
  CU_CHECK(cuMemFreeHost(h_upload));
  CU_CHECK(cuMemFreeHost(h_result));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
