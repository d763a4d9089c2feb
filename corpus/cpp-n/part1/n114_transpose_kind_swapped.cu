// case: Tiled matrix-transpose benchmark whose result download has destination and source swapped: cudaMemcpy(d_out, h_out, ..., cudaMemcpyDeviceToHost) names the device buffer as destination and the std::vector as source, so the host check reads an untouched vector.
// expect: memcpy_kind_mismatch=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int TILE = 32;
constexpr int ROWS = 8;

__global__ void transpose_tiled(float* out, const float* in, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int width = 4096, height = 2048;
  const size_t n = size_t(width) * height;
  const size_t bytes = n * sizeof(float);

  std::vector<float> h_in(n), h_out(n, 0.0f);
  for (size_t i = 0; i < n; ++i) h_in[i] = float(i);

  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, bytes));
  CUDA_CHECK(cudaMalloc(&d_out, bytes));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));

  dim3 block(TILE, ROWS), grid(width / TILE, height / TILE);
  transpose_tiled<<<grid, block>>>(d_out, d_in, width, height);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaMemcpy(d_out, h_out.data(), bytes, cudaMemcpyDeviceToHost));  // EXPECT: memcpy_kind_mismatch

  size_t errors = 0;
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c)
      if (h_out[size_t(c) * height + r] != h_in[size_t(r) * width + c]) ++errors;
  printf("transpose: %zu errors\n", errors);

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return 0;
}
