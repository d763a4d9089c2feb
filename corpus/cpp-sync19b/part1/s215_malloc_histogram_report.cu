// case: histogram report copies 256 bins into a malloc'd array with cudaMemcpyAsync and prints them with no stream synchronize in between (small copy: no pageable_async_copy)
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kBins = 256;

__global__ void histogram_kernel(const unsigned char* pixels, int n, unsigned int* bins) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[pixels[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int report_histogram(const unsigned char* d_pixels, int n, cudaStream_t stream) {
  unsigned int* d_bins = nullptr;
  cudaMalloc(&d_bins, kBins * sizeof(unsigned int));
  unsigned int* h_bins = static_cast<unsigned int*>(std::malloc(kBins * sizeof(unsigned int)));
  if (h_bins == nullptr) {
    cudaFree(d_bins);
    return -1;
  }

  cudaMemsetAsync(d_bins, 0, kBins * sizeof(unsigned int), stream);
  histogram_kernel<<<128, 256, 0, stream>>>(d_pixels, n, d_bins);
  cudaMemcpyAsync(h_bins, d_bins, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost, stream);

  unsigned long long total = 0;
  int peak = 0;
  for (int b = 0; b < kBins; ++b) {
    total += h_bins[b];  // EXPECT: relies_on_implicit_sync
    if (h_bins[b] > h_bins[peak]) peak = b;
  }
  std::printf("%llu pixels, peak bin %d\n", total, peak);

  cudaStreamSynchronize(stream);
  std::free(h_bins);
  cudaFree(d_bins);
  return peak;
}

int main() {
  const int n = 1 << 22;
  std::vector<unsigned char> h_pixels(n);
  for (int i = 0; i < n; ++i) h_pixels[i] = static_cast<unsigned char>((i * i) >> 7);
  unsigned char* d_pixels = nullptr;
  cudaMalloc(&d_pixels, n);
  cudaMemcpy(d_pixels, h_pixels.data(), n, cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  int peak = report_histogram(d_pixels, n, stream);

  cudaFree(d_pixels);
  cudaStreamDestroy(stream);
  return peak < 0 ? 1 : 0;
}
