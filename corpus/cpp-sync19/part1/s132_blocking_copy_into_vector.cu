// case: near miss: prefix-sum offsets for a CSR build on the legacy stream, copied back with a blocking cudaMemcpy into a std::vector and read afterwards; the blocking copy waits for the kernel
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t rc_ = (call);                                                \
    if (rc_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(rc_)); \
      return EXIT_FAILURE;                                                   \
    }                                                                        \
  } while (0)

// Hillis-Steele inclusive scan within one block of 1024 threads over chunks, carried serially.
__global__ void scan_row_counts(const int* __restrict__ counts, int* __restrict__ offsets, int n) {
  __shared__ int buf[1024];
  __shared__ int carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < n; base += 1024) {
    const int i = base + threadIdx.x;
    buf[threadIdx.x] = i < n ? counts[i] : 0;
    __syncthreads();
    for (int off = 1; off < 1024; off <<= 1) {
      const int v = threadIdx.x >= off ? buf[threadIdx.x - off] : 0;
      __syncthreads();
      buf[threadIdx.x] += v;
      __syncthreads();
    }
    if (i < n) offsets[i + 1] = carry + buf[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 1023) carry += buf[1023];
    __syncthreads();
  }
  if (threadIdx.x == 0) offsets[0] = 0;
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 1000000;
  std::vector<int> counts(rows);
  for (int r = 0; r < rows; ++r) counts[r] = 1 + (r * 7) % 9;

  int *d_counts = nullptr, *d_offsets = nullptr;
  CUDA_CHECK(cudaMalloc(&d_counts, rows * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_offsets, (rows + 1) * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_counts, counts.data(), rows * sizeof(int), cudaMemcpyHostToDevice));

  scan_row_counts<<<1, 1024>>>(d_counts, d_offsets, rows);
  CUDA_CHECK(cudaGetLastError());

  std::vector<int> offsets(rows + 1);
  CUDA_CHECK(cudaMemcpy(offsets.data(), d_offsets, (rows + 1) * sizeof(int), cudaMemcpyDeviceToHost));
  long long expected = 0;
  for (int c : counts) expected += c;
  std::printf("nnz = %d (expected %lld)\n", offsets[rows], expected);

  CUDA_CHECK(cudaFree(d_counts));
  CUDA_CHECK(cudaFree(d_offsets));
  return 0;
}
