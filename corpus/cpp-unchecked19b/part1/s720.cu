// case: a cuda-samples style program wraps calls in checkCudaErrors and follows each launch with getLastCudaError from helper_cuda.h, a header the case does not ship.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define BLOCK_SIZE 256

__global__ void bitonic_step(unsigned int* keys, int j, int k, int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int ixj = i ^ j;
  if (i >= static_cast<unsigned>(n) || ixj <= i) return;
  bool ascending = (i & k) == 0;
  unsigned int a = keys[i], b = keys[ixj];
  if ((a > b) == ascending) {
    keys[i] = b;
    keys[ixj] = a;
  }
}

__global__ void mark_unsorted(const unsigned int* keys, int n, int* bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n && keys[i] > keys[i + 1]) atomicAdd(bad, 1);
}

int main(int argc, char** argv) {
  int dev = findCudaDevice(argc, (const char**)argv);
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  std::printf("> bitonic sort on %s\n", prop.name);

  const int n = 1 << 20;  // power of two
  std::vector<unsigned int> h_keys(n);
  srand(2024);
  for (int i = 0; i < n; ++i) h_keys[i] = static_cast<unsigned int>(rand());

  unsigned int* d_keys = nullptr;
  int* d_bad = nullptr;
  checkCudaErrors(cudaMalloc(&d_keys, n * sizeof(unsigned int)));
  checkCudaErrors(cudaMalloc(&d_bad, sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_keys, h_keys.data(), n * sizeof(unsigned int), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(d_bad, 0, sizeof(int)));

  const int blocks = n / BLOCK_SIZE;
  for (int k = 2; k <= n; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      bitonic_step<<<blocks, BLOCK_SIZE>>>(d_keys, j, k, n);
      getLastCudaError("bitonic_step kernel execution failed");
    }
  }
  mark_unsorted<<<blocks, BLOCK_SIZE>>>(d_keys, n, d_bad);
  getLastCudaError("mark_unsorted kernel execution failed");
  checkCudaErrors(cudaDeviceSynchronize());

  int bad = 0;
  checkCudaErrors(cudaMemcpy(&bad, d_bad, sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(h_keys.data(), d_keys, n * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  std::printf("%s (%d inversions, first key %u)\n", bad == 0 ? "Test passed" : "Test failed", bad, h_keys[0]);

  checkCudaErrors(cudaFree(d_bad));
  checkCudaErrors(cudaFree(d_keys));
  exit(bad == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
}
