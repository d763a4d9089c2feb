// case: 256-bin image histogram on a non-blocking stream (async upload, async memset, kernel, async readback to pinned memory); the device image is cudaFreed before the stream is synchronized, while the kernel may still read it
// expect: relies_on_implicit_sync=1
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_TRY(call)                                                      \
  do {                                                                      \
    cudaError_t status = (call);                                            \
    if (status != cudaSuccess) {                                            \
      std::fprintf(stderr, "error: %s (%s)\n", cudaGetErrorString(status), #call); \
      return EXIT_FAILURE;                                                  \
    }                                                                       \
  } while (0)

constexpr int kBins = 256;

__global__ void histogram256(const uint8_t* __restrict__ img, size_t n, unsigned int* hist) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&local[img[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

int main(int argc, char** argv) {
  const int width = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int height = argc > 2 ? std::atoi(argv[2]) : 4096;
  const size_t n = size_t(width) * height;

  cudaStream_t stream;
  CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  uint8_t* h_img = nullptr;
  unsigned int* h_hist = nullptr;
  CUDA_TRY(cudaMallocHost(&h_img, n));
  CUDA_TRY(cudaMallocHost(&h_hist, kBins * sizeof(unsigned int)));
  for (size_t i = 0; i < n; ++i) h_img[i] = static_cast<uint8_t>((i * 37 + i / width) & 0xff);

  uint8_t* d_img = nullptr;
  unsigned int* d_hist = nullptr;
  CUDA_TRY(cudaMalloc(&d_img, n));
  CUDA_TRY(cudaMalloc(&d_hist, kBins * sizeof(unsigned int)));

  CUDA_TRY(cudaMemcpyAsync(d_img, h_img, n, cudaMemcpyHostToDevice, stream));
  CUDA_TRY(cudaMemsetAsync(d_hist, 0, kBins * sizeof(unsigned int), stream));
  histogram256<<<512, 256, 0, stream>>>(d_img, n, d_hist);
  CUDA_TRY(cudaGetLastError());
  CUDA_TRY(cudaMemcpyAsync(h_hist, d_hist, kBins * sizeof(unsigned int),
                           cudaMemcpyDeviceToHost, stream));
  CUDA_TRY(cudaFree(d_img));  // EXPECT: relies_on_implicit_sync

  CUDA_TRY(cudaStreamSynchronize(stream));
  unsigned long long total = 0;
  int mode = 0;
  for (int b = 0; b < kBins; ++b) {
    total += h_hist[b];
    if (h_hist[b] > h_hist[mode]) mode = b;
  }
  std::printf("%llu pixels, mode bin %d\n", total, mode);

  CUDA_TRY(cudaFree(d_hist));
  CUDA_TRY(cudaFreeHost(h_hist));
  CUDA_TRY(cudaFreeHost(h_img));
  CUDA_TRY(cudaStreamDestroy(stream));
  return 0;
}
