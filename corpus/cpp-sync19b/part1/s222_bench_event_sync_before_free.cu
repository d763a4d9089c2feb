// case: benchmark harness allocates a scratch buffer per repetition, times the kernel with events and cudaEventSynchronize's the stop event (recorded after the kernel) before cudaFree of the scratch
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[static_cast<size_t>(y) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  if (x < rows && y < cols) out[static_cast<size_t>(y) * rows + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  const int rows = 4096, cols = 2048, reps = 5;
  const size_t bytes = static_cast<size_t>(rows) * cols * sizeof(float);
  std::vector<float> h_in(static_cast<size_t>(rows) * cols);
  for (size_t i = 0; i < h_in.size(); ++i) h_in[i] = static_cast<float>(i);

  float* d_in = nullptr;
  cudaMalloc(&d_in, bytes);
  cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);

  float best_ms = 1e30f;
  for (int r = 0; r < reps; ++r) {
    float* d_out = nullptr;
    cudaMalloc(&d_out, bytes);
    cudaEventRecord(start, stream);
    transpose_kernel<<<dim3(cols / 32, rows / 32), dim3(32, 32), 0, stream>>>(d_in, d_out, rows, cols);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);
    if (ms < best_ms) best_ms = ms;
    cudaFree(d_out);
  }
  std::printf("best %.3f ms, %.1f GB/s\n", best_ms, 2.0 * bytes / best_ms / 1e6);

  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cudaFree(d_in);
  return 0;
}
