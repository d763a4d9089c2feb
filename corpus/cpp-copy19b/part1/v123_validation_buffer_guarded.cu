// case: a shared-memory matrix transpose benchmark that allocates a reference output only when --validate is given and uses it only under the same flag; the unconditional cudaFree of the possibly-null pointer is legal
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define DIM 4096
#define TILE 32
#define ROWS 8

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void transpose_tiled(float *out, const float *in) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * DIM + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * DIM + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_naive(float *out, const float *in) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[x * DIM + (y + j)] = in[(y + j) * DIM + x];
}

int main(int argc, char **argv) {
  bool validate = argc > 1 && strcmp(argv[1], "--validate") == 0;
  const size_t bytes = sizeof(float) * DIM * DIM;

  std::vector<float> h_in(DIM * DIM), h_out(DIM * DIM), h_ref;
  for (int i = 0; i < DIM * DIM; ++i) h_in[i] = (float)i;

  float *d_in, *d_out, *d_ref = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, bytes));
  CUDA_CHECK(cudaMalloc(&d_out, bytes));
  if (validate) CUDA_CHECK(cudaMalloc(&d_ref, bytes));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));

  dim3 grid(DIM / TILE, DIM / TILE), block(TILE, ROWS);
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  transpose_tiled<<<grid, block>>>(d_out, d_in);
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  printf("tiled transpose: %.3f ms, %.1f GB/s\n", ms, 2.0 * bytes / ms / 1e6);
  CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));

  if (validate) {
    h_ref.resize(DIM * DIM);
    transpose_naive<<<grid, block>>>(d_ref, d_in);
    CUDA_CHECK(cudaMemcpy(h_ref.data(), d_ref, bytes, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < DIM * DIM; ++i) bad += h_ref[i] != h_out[i];
    printf("validation: %d mismatches\n", bad);
  }

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(d_ref));
  return 0;
}
