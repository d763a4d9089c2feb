// case: layer-norm forward pass that saves per-row mean and inverse std for the backward pass, launched with the stats buffer still NULL while the kernel writes it unconditionally
// expect: unallocated_pointer=1
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define ROWS 4096
#define COLS 768
#define BLOCK 256
#define EPS 1e-5f

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "CUDA failure %s at %s:%d\n", cudaGetErrorString(e_),\
              __FILE__, __LINE__);                                         \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__device__ float block_sum(float v, float *smem) {
  smem[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
    __syncthreads();
  }
  float r = smem[0];
  __syncthreads();
  return r;
}

__global__ void layernorm_fwd(const float *x, const float *gamma, const float *beta, float *y,
                              float2 *stats, int cols) {
  __shared__ float smem[BLOCK];
  const float *xr = x + (size_t)blockIdx.x * cols;
  float *yr = y + (size_t)blockIdx.x * cols;
  float s = 0.f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) s += xr[j];
  float mean = block_sum(s, smem) / cols;
  float v = 0.f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) v += (xr[j] - mean) * (xr[j] - mean);
  float rstd = rsqrtf(block_sum(v, smem) / cols + EPS);
  for (int j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
  if (threadIdx.x == 0) stats[blockIdx.x] = make_float2(mean, rstd);
}

int main() {
  float *h_x = (float *)malloc(sizeof(float) * ROWS * COLS);
  float *h_y = (float *)malloc(sizeof(float) * ROWS * COLS);
  float h_gamma[COLS], h_beta[COLS];
  for (int i = 0; i < ROWS * COLS; ++i) h_x[i] = sinf(0.001f * i);
  for (int j = 0; j < COLS; ++j) {
    h_gamma[j] = 1.0f;
    h_beta[j] = 0.0f;
  }

  float *d_x, *d_y, *d_gamma, *d_beta;
  float2 *d_stats = NULL;
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * ROWS * COLS));
  CUDA_CHECK(cudaMalloc(&d_y, sizeof(float) * ROWS * COLS));
  CUDA_CHECK(cudaMalloc(&d_gamma, sizeof(h_gamma)));
  CUDA_CHECK(cudaMalloc(&d_beta, sizeof(h_beta)));
  CUDA_CHECK(cudaMemcpy(d_x, h_x, sizeof(float) * ROWS * COLS, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_gamma, h_gamma, sizeof(h_gamma), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_beta, h_beta, sizeof(h_beta), cudaMemcpyHostToDevice));

  layernorm_fwd<<<ROWS, BLOCK>>>(d_x, d_gamma, d_beta, d_y, d_stats, COLS); // EXPECT: unallocated_pointer
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_y, d_y, sizeof(float) * ROWS * COLS, cudaMemcpyDeviceToHost));

  double mean0 = 0.0;
  for (int j = 0; j < COLS; ++j) mean0 += h_y[j];
  printf("row 0 mean after norm: %g\n", mean0 / COLS);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_gamma));
  CUDA_CHECK(cudaFree(d_beta));
  CUDA_CHECK(cudaFree(d_stats));
  return 0;
}
