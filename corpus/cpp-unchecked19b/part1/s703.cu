// case: a transpose benchmark times a launch loop with CUDA events; the timed launches reach cudaEventSynchronize with no cudaGetLastError in between, and cudaEventElapsedTime's status is dropped.
// expect: unchecked_cuda_result=2
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                   cudaGetErrorString(e_));                                  \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

constexpr int TILE = 32;
constexpr int ROWS = 8;

__global__ void transpose(float* out, const float* in, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int w = 4096, h = 4096, reps = 20;
  const size_t bytes = static_cast<size_t>(w) * h * sizeof(float);
  std::vector<float> h_in(static_cast<size_t>(w) * h);
  std::iota(h_in.begin(), h_in.end(), 0.0f);

  float *d_in = nullptr, *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, bytes));
  CUDA_CHECK(cudaMalloc(&d_out, bytes));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));

  dim3 block(TILE, ROWS);
  dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);

  // warm-up
  transpose<<<grid, block>>>(d_out, d_in, w, h);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int r = 0; r < reps; ++r) {
    transpose<<<grid, block>>>(d_out, d_in, w, h);  // EXPECT: unchecked_cuda_result
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));

  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);  // EXPECT: unchecked_cuda_result
  const double gbps = 2.0 * bytes * reps / (ms * 1e-3) / 1e9;
  std::printf("transpose %dx%d: %.3f ms/iter, %.1f GB/s\n", w, h, ms / reps, gbps);

  std::vector<float> h_out(h_in.size());
  CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
  bool ok = h_out[1] == h_in[w] && h_out[h] == h_in[1];
  std::printf("%s\n", ok ? "PASSED" : "FAILED");

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return ok ? 0 : 1;
}
