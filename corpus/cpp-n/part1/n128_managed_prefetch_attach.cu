// case: Managed-memory SAXPY with cudaMemAdvise and cudaMemPrefetchAsync both ways; the host touches the globally attached arrays only before the first launch and after cudaStreamSynchronize, and fills a cudaMemAttachHost staging array while the kernel runs (legal: host-attached memory is not taken by kernels) before attaching it to the stream for the second kernel.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

static void prefetch(const void* p, size_t bytes, int device, cudaStream_t s) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc = {};
  loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  loc.id = device == cudaCpuDeviceId ? 0 : device;
  CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, loc, 0, s));
#else
  CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, device, s));
#endif
}

static void prefer_device(const void* p, size_t bytes, int device) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc = {};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = device;
  CUDA_CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, loc));
#else
  CUDA_CHECK(cudaMemAdvise(p, bytes, cudaMemAdviseSetPreferredLocation, device));
#endif
}

__global__ void saxpy(float a, const float* x, float* y, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void add_offsets(float* y, const float* offsets, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) y[i] += offsets[i % 1024];
}

int main() {
  const int dev = 0;
  const size_t n = size_t(1) << 24;
  const size_t bytes = n * sizeof(float);
  const unsigned grid = unsigned((n + 255) / 256);

  float *x, *y, *offsets;
  CUDA_CHECK(cudaMallocManaged(&x, bytes));
  CUDA_CHECK(cudaMallocManaged(&y, bytes));
  CUDA_CHECK(cudaMallocManaged(&offsets, 1024 * sizeof(float), cudaMemAttachHost));
  for (size_t i = 0; i < n; ++i) {
    x[i] = 1.0f;
    y[i] = float(i % 10);
  }

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  prefer_device(x, bytes, dev);
  prefetch(x, bytes, dev, stream);
  prefetch(y, bytes, dev, stream);
  saxpy<<<grid, 256, 0, stream>>>(2.0f, x, y, n);
  CUDA_CHECK(cudaGetLastError());

  for (int i = 0; i < 1024; ++i) offsets[i] = 0.001f * i;  // host-attached: not visible to the running kernel
  CUDA_CHECK(cudaStreamAttachMemAsync(stream, offsets, 0, cudaMemAttachSingle));
  add_offsets<<<grid, 256, 0, stream>>>(y, offsets, n);
  CUDA_CHECK(cudaGetLastError());

  prefetch(y, bytes, cudaCpuDeviceId, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += y[i];
  printf("sum(y) = %.3f\n", sum);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  CUDA_CHECK(cudaFree(offsets));
  return 0;
}
