// case: row-wise softmax helper that keeps per-row maxima in a file-scope static device pointer nothing ever allocates (nor takes the address of), passed to a kernel that writes and reads it
// expect: unallocated_pointer=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define ROWS 2048
#define COLS 1000
#define BLOCK 128

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

static float *g_row_max;

__global__ void softmax_rows_kernel(const float *x, float *y, float *row_max, int cols) {
  int r = blockIdx.x;
  const float *xr = x + (size_t)r * cols;
  float *yr = y + (size_t)r * cols;
  if (threadIdx.x == 0) {
    float m = xr[0];
    for (int j = 1; j < cols; ++j) m = fmaxf(m, xr[j]);
    row_max[r] = m;
  }
  __syncthreads();
  float m = row_max[r];
  float sum = 0.f;
  for (int j = 0; j < cols; ++j) sum += __expf(xr[j] - m);
  for (int j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = __expf(xr[j] - m) / sum;
}

static void softmax_rows(const float *d_x, float *d_y, int rows, int cols) {
  softmax_rows_kernel<<<rows, BLOCK>>>(d_x, d_y, g_row_max, cols); // EXPECT: unallocated_pointer
  CUDA_CHECK(cudaGetLastError());
}

static void release_workspace() { CUDA_CHECK(cudaFree(g_row_max)); }

int main() {
  std::vector<float> h_x(ROWS * COLS), h_y(ROWS * COLS);
  for (int i = 0; i < ROWS * COLS; ++i) h_x[i] = (float)((i * 31) % 101) / 50.0f;

  float *d_x, *d_y;
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * ROWS * COLS));
  CUDA_CHECK(cudaMalloc(&d_y, sizeof(float) * ROWS * COLS));
  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), sizeof(float) * ROWS * COLS, cudaMemcpyHostToDevice));

  softmax_rows(d_x, d_y, ROWS, COLS);

  CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, sizeof(float) * ROWS * COLS, cudaMemcpyDeviceToHost));
  float s = 0.f;
  for (int j = 0; j < COLS; ++j) s += h_y[j];
  printf("sum of row 0 = %f\n", s);

  release_workspace();
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  return 0;
}
