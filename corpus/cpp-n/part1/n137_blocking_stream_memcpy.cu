// case: Kernel runs on a stream made with plain cudaStreamCreate (a blocking stream), so the following cudaMemcpy on the legacy default stream waits for it before reading d_hist; the second download uses cudaMemcpyDefault into pinned memory and the D2D snapshot names its kind correctly.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kBins = 64;

__global__ void histogram(const unsigned char* data, size_t n, unsigned* hist) {
  __shared__ unsigned local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&local[data[i] % kBins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

int main() {
  const size_t n = size_t(64) << 20;
  unsigned char *h_data, *d_data;
  unsigned *d_hist, *d_hist_prev, *h_prev;
  CUDA_CHECK(cudaMallocHost(&h_data, n));
  CUDA_CHECK(cudaMallocHost(&h_prev, kBins * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_data, n));
  CUDA_CHECK(cudaMalloc(&d_hist, kBins * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_hist_prev, kBins * sizeof(unsigned)));
  for (size_t i = 0; i < n; ++i) h_data[i] = (unsigned char)((i * 2654435761u) >> 24);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CUDA_CHECK(cudaMemsetAsync(d_hist, 0, kBins * sizeof(unsigned), stream));
  CUDA_CHECK(cudaMemcpyAsync(d_data, h_data, n, cudaMemcpyHostToDevice, stream));
  histogram<<<512, 256, 0, stream>>>(d_data, n, d_hist);
  CUDA_CHECK(cudaGetLastError());

  std::vector<unsigned> hist(kBins);
  CUDA_CHECK(cudaMemcpy(hist.data(), d_hist, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long total = 0;
  for (int b = 0; b < kBins; ++b) total += hist[b];
  printf("counted %llu of %zu bytes\n", total, n);

  CUDA_CHECK(cudaMemcpy(d_hist_prev, d_hist, kBins * sizeof(unsigned), cudaMemcpyDeviceToDevice));
  histogram<<<512, 256, 0, stream>>>(d_data, n, d_hist);
  CUDA_CHECK(cudaMemcpy(h_prev, d_hist_prev, kBins * sizeof(unsigned), cudaMemcpyDefault));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  printf("bin 0: %u after one pass\n", h_prev[0]);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_data));
  CUDA_CHECK(cudaFree(d_hist));
  CUDA_CHECK(cudaFree(d_hist_prev));
  CUDA_CHECK(cudaFreeHost(h_data));
  CUDA_CHECK(cudaFreeHost(h_prev));
  return 0;
}
