// case: segmentation mask through the driver API (cuMemAlloc, blocking CUstream); the probabilities come back with cuMemcpyDtoHAsync into a std::vector and the host thresholds them in place with no wait on the stream
// expect: relies_on_implicit_sync=1, pageable_async_copy=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

#define CU_CHECK(call)                                                     \
  do {                                                                     \
    CUresult r_ = (call);                                                  \
    if (r_ != CUDA_SUCCESS) {                                              \
      const char* msg_ = nullptr;                                          \
      cuGetErrorString(r_, &msg_);                                         \
      std::fprintf(stderr, "%s failed: %s\n", #call, msg_ ? msg_ : "?");  \
      return EXIT_FAILURE;                                                 \
    }                                                                      \
  } while (0)

__global__ void sigmoid(const float* __restrict__ logits, float* __restrict__ prob, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) prob[i] = 1.f / (1.f + __expf(-logits[i]));
}

int main(int argc, char** argv) {
  const int width = argc > 1 ? std::atoi(argv[1]) : 2048;
  const int height = argc > 2 ? std::atoi(argv[2]) : 2048;
  const int n = width * height;
  const size_t bytes = size_t(n) * sizeof(float);

  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));

  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_DEFAULT));

  std::vector<float> logits(n);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const float dx = x - width / 2.f, dy = y - height / 2.f;
      logits[size_t(y) * width + x] = 4.f - std::sqrt(dx * dx + dy * dy) / 64.f;
    }

  CUdeviceptr d_logits = 0, d_prob = 0;
  CU_CHECK(cuMemAlloc(&d_logits, bytes));
  CU_CHECK(cuMemAlloc(&d_prob, bytes));
  CU_CHECK(cuMemcpyHtoD(d_logits, logits.data(), bytes));

  sigmoid<<<(n + 255) / 256, 256, 0, reinterpret_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<const float*>(d_logits), reinterpret_cast<float*>(d_prob), n);
  if (cudaGetLastError() != cudaSuccess) return EXIT_FAILURE;

  std::vector<float> mask(n);
  CU_CHECK(cuMemcpyDtoHAsync(mask.data(), d_prob, bytes, stream));  // EXPECT: pageable_async_copy
  for (int i = 0; i < n; ++i) mask[i] = mask[i] > 0.5f ? 1.f : 0.f;  // EXPECT: relies_on_implicit_sync

  size_t foreground = 0;
  for (int i = 0; i < n; ++i) foreground += mask[i] > 0.f;
  std::printf("foreground: %zu of %d pixels\n", foreground, n);

  CU_CHECK(cuStreamSynchronize(stream));
  CU_CHECK(cuMemFree(d_logits));
  CU_CHECK(cuMemFree(d_prob));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
