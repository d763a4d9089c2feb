// case: Stream-ordered allocation made and freed on a loader stream but used by a kernel on a compute stream, with events in both directions: the compute stream waits for the upload before using the buffer, and the loader stream waits for the kernel before cudaFreeAsync; the host reads the pinned result only after synchronizing.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
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

__global__ void scale_bias(const float* in, float* out, float a, float b, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a * in[i] + b;
}

int main() {
  const size_t n = size_t(1) << 24;
  const size_t bytes = n * sizeof(float);

  cudaMemPool_t pool;
  CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  uint64_t threshold = UINT64_MAX;
  CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));

  cudaStream_t loader, compute;
  CUDA_CHECK(cudaStreamCreateWithFlags(&loader, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  cudaEvent_t loaded, used;
  CUDA_CHECK(cudaEventCreateWithFlags(&loaded, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&used, cudaEventDisableTiming));

  float *h_src, *h_dst;
  CUDA_CHECK(cudaMallocHost(&h_src, bytes));
  CUDA_CHECK(cudaMallocHost(&h_dst, bytes));
  for (size_t i = 0; i < n; ++i) h_src[i] = float(i & 0xffff);

  float *d_staged = nullptr, *d_out = nullptr;
  CUDA_CHECK(cudaMallocAsync(&d_staged, bytes, loader));
  CUDA_CHECK(cudaMemcpyAsync(d_staged, h_src, bytes, cudaMemcpyHostToDevice, loader));
  CUDA_CHECK(cudaEventRecord(loaded, loader));

  CUDA_CHECK(cudaMallocAsync(&d_out, bytes, compute));
  CUDA_CHECK(cudaStreamWaitEvent(compute, loaded, 0));
  scale_bias<<<unsigned((n + 255) / 256), 256, 0, compute>>>(d_staged, d_out, 0.5f, 1.0f, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(used, compute));

  CUDA_CHECK(cudaStreamWaitEvent(loader, used, 0));
  CUDA_CHECK(cudaFreeAsync(d_staged, loader));

  CUDA_CHECK(cudaMemcpyAsync(h_dst, d_out, bytes, cudaMemcpyDeviceToHost, compute));
  CUDA_CHECK(cudaFreeAsync(d_out, compute));
  CUDA_CHECK(cudaStreamSynchronize(compute));
  CUDA_CHECK(cudaStreamSynchronize(loader));
  printf("dst[12345] = %.2f\n", h_dst[12345]);

  CUDA_CHECK(cudaEventDestroy(loaded));
  CUDA_CHECK(cudaEventDestroy(used));
  CUDA_CHECK(cudaStreamDestroy(loader));
  CUDA_CHECK(cudaStreamDestroy(compute));
  CUDA_CHECK(cudaFreeHost(h_src));
  CUDA_CHECK(cudaFreeHost(h_dst));
  return 0;
}
