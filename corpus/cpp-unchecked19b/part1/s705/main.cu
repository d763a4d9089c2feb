// case: a batched histogram checks launches with gpuErrchk(cudaPeekAtLastError()) from its header, but drops the status of the per-batch cudaMemset and of one cudaFree.
// expect: unchecked_cuda_result=2
#include <cstdio>
#include <random>
#include <vector>

#include "cuda_utils.h"

constexpr int kBins = 256;

__global__ void histogram256(const unsigned char* data, int n, unsigned int* hist) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&local[data[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

int main() {
  const int batch = 1 << 22;
  const int num_batches = 8;
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<unsigned char> h_data(batch);
  std::vector<unsigned int> h_hist(kBins);
  std::vector<unsigned long long> totals(kBins, 0);

  unsigned char* d_data = device_alloc<unsigned char>(batch);
  unsigned int* d_hist = device_alloc<unsigned int>(kBins);

  for (int b = 0; b < num_batches; ++b) {
    for (auto& v : h_data) v = static_cast<unsigned char>(dist(rng));
    gpuErrchk(cudaMemcpy(d_data, h_data.data(), batch, cudaMemcpyHostToDevice));
    cudaMemset(d_hist, 0, kBins * sizeof(unsigned int));  // EXPECT: unchecked_cuda_result

    histogram256<<<120, 256>>>(d_data, batch, d_hist);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaDeviceSynchronize());

    gpuErrchk(cudaMemcpy(h_hist.data(), d_hist, kBins * sizeof(unsigned int),
                         cudaMemcpyDeviceToHost));
    for (int k = 0; k < kBins; ++k) totals[k] += h_hist[k];
  }

  unsigned long long sum = 0;
  for (int k = 0; k < kBins; ++k) sum += totals[k];
  std::printf("counted %llu of %llu bytes, bin[0]=%llu\n", sum,
              static_cast<unsigned long long>(batch) * num_batches, totals[0]);

  gpuErrchk(cudaFree(d_data));
  cudaFree(d_hist);  // EXPECT: unchecked_cuda_result
  return 0;
}
