// case: sum-of-squares reduction over a device buffer sized for the maximum problem, with the element count read from argv at run time, so the copy's byte count is not a known constant
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define MAX_N (1 << 24)
#define BLOCK 512

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_),  \
              __FILE__, __LINE__);                                         \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void sum_squares(const float *x, int n, float *result) {
  __shared__ float sdata[BLOCK];
  int tid = threadIdx.x;
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) v += x[i] * x[i];
  sdata[tid] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(result, sdata[0]);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000000;
  if (n <= 0 || n > MAX_N) {
    fprintf(stderr, "n must be in (0, %d]\n", MAX_N);
    return 1;
  }

  std::vector<float> h_x(n);
  for (int i = 0; i < n; ++i) h_x[i] = 1.0f / (1.0f + (float)(i % 1000));

  float *d_x, *d_result;
  CUDA_CHECK(cudaMalloc(&d_x, MAX_N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_result, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_result, 0, sizeof(float)));

  int blocks = (n + BLOCK - 1) / BLOCK;
  if (blocks > 1024) blocks = 1024;
  sum_squares<<<blocks, BLOCK>>>(d_x, n, d_result);
  CUDA_CHECK(cudaGetLastError());

  float result = 0.0f;
  CUDA_CHECK(cudaMemcpy(&result, d_result, sizeof(result), cudaMemcpyDeviceToHost));
  printf("||x||^2 = %f over %d elements\n", result, n);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_result));
  return 0;
}
