// case: two-pass sum reduction that launches the final pass into d_total but then copies the per-block partial sums back and adds them on the host, freeing d_total without reading it
// expect: unread_kernel_output=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define N (1 << 24)
#define BLOCK 512
#define NBLOCKS 1024

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

template <unsigned int BS>
__device__ void block_reduce(volatile float *s) {
  for (unsigned int k = BS / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
}

__global__ void reduce_partial(const float *in, float *partial, int n) {
  __shared__ float s[BLOCK];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  block_reduce<BLOCK>(s);
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void reduce_final(const float *partial, float *total, int m) {
  __shared__ float s[BLOCK];
  float v = 0.f;
  for (int i = threadIdx.x; i < m; i += blockDim.x) v += partial[i];
  s[threadIdx.x] = v;
  __syncthreads();
  block_reduce<BLOCK>(s);
  if (threadIdx.x == 0) *total = s[0];
}

int main() {
  std::vector<float> h_in(N);
  for (int i = 0; i < N; ++i) h_in[i] = (i % 3 == 0) ? 1.0f : 0.5f;

  float *d_in, *d_partial, *d_total;
  CUDA_CHECK(cudaMalloc(&d_in, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_partial, NBLOCKS * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_total, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), N * sizeof(float), cudaMemcpyHostToDevice));

  reduce_partial<<<NBLOCKS, BLOCK>>>(d_in, d_partial, N);
  reduce_final<<<1, BLOCK>>>(d_partial, d_total, NBLOCKS);
  CUDA_CHECK(cudaGetLastError());

  std::vector<float> h_partial(NBLOCKS);
  CUDA_CHECK(cudaMemcpy(h_partial.data(), d_partial, NBLOCKS * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0.0;
  for (float p : h_partial) sum += p;
  printf("sum = %.1f\n", sum);

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_partial));
  CUDA_CHECK(cudaFree(d_total)); // EXPECT: unread_kernel_output
  return 0;
}
