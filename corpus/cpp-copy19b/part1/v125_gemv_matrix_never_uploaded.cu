// case: GEMV benchmark that uploads the vector but never the matrix, so the kernel reads a freshly cudaMalloc'ed matrix nothing wrote
// expect: uninitialized_device_read=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define ROWS 8192
#define COLS 4096
#define WARPS_PER_BLOCK 8

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

// one warp per row
__global__ void gemv_warp(const float *A, const float *x, float *y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (warp >= rows) return;
  const float *row = A + (size_t)warp * cols;
  float sum = 0.f;
  for (int j = lane; j < cols; j += 32) sum += row[j] * x[j];
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffff, sum, off);
  if (lane == 0) y[warp] = sum;
}

int main() {
  std::vector<float> h_A((size_t)ROWS * COLS), h_x(COLS), h_y(ROWS);
  for (size_t i = 0; i < h_A.size(); ++i) h_A[i] = (float)(i % 5) - 2.f;
  for (int j = 0; j < COLS; ++j) h_x[j] = 1.0f / (j + 1);

  float *d_A, *d_x, *d_y;
  CUDA_CHECK(cudaMalloc(&d_A, sizeof(float) * ROWS * COLS));
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * COLS));
  CUDA_CHECK(cudaMalloc(&d_y, sizeof(float) * ROWS));
  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), sizeof(float) * COLS, cudaMemcpyHostToDevice));

  cudaEvent_t t0, t1;
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));
  const int threads = 32 * WARPS_PER_BLOCK;
  const int blocks = (ROWS + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;

  CUDA_CHECK(cudaEventRecord(t0));
  gemv_warp<<<blocks, threads>>>(d_A, d_x, d_y, ROWS, COLS); // EXPECT: uninitialized_device_read
  CUDA_CHECK(cudaEventRecord(t1));
  CUDA_CHECK(cudaEventSynchronize(t1));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));

  CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, sizeof(float) * ROWS, cudaMemcpyDeviceToHost));
  printf("gemv %dx%d: %.3f ms (%.1f GB/s), y[0] = %f\n", ROWS, COLS, ms,
         sizeof(float) * (double)ROWS * COLS / ms / 1e6, h_y[0]);

  CUDA_CHECK(cudaEventDestroy(t0));
  CUDA_CHECK(cudaEventDestroy(t1));
  CUDA_CHECK(cudaFree(d_A));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  return 0;
}
