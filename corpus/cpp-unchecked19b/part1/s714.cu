// case: a matmul benchmark times a launch loop with CUDA events and checks everything: cudaGetLastError after the loop before the stop event is recorded and synchronized, and the elapsed time through CUDA_CHECK.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "CUDA error at %s:%d: %s\n", __FILE__, __LINE__,  \
                   cudaGetErrorString(err_));                                \
      std::exit(EXIT_FAILURE);                                               \
    }                                                                        \
  } while (0)

constexpr int BS = 16;

__global__ void matmul(const float* A, const float* B, float* C, int N) {
  __shared__ float As[BS][BS];
  __shared__ float Bs[BS][BS];
  int row = blockIdx.y * BS + threadIdx.y;
  int col = blockIdx.x * BS + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < N / BS; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * N + t * BS + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * BS + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < BS; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * N + col] = acc;
}

int main(int argc, char** argv) {
  const int N = 1024;  // multiple of BS
  const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
  const size_t bytes = static_cast<size_t>(N) * N * sizeof(float);
  std::vector<float> h_A(static_cast<size_t>(N) * N, 1.0f);
  std::vector<float> h_B(static_cast<size_t>(N) * N, 0.5f);
  std::vector<float> h_C(static_cast<size_t>(N) * N);

  float *d_A, *d_B, *d_C;
  CUDA_CHECK(cudaMalloc(&d_A, bytes));
  CUDA_CHECK(cudaMalloc(&d_B, bytes));
  CUDA_CHECK(cudaMalloc(&d_C, bytes));
  CUDA_CHECK(cudaMemcpy(d_A, h_A.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_B, h_B.data(), bytes, cudaMemcpyHostToDevice));

  dim3 block(BS, BS);
  dim3 grid(N / BS, N / BS);
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  CUDA_CHECK(cudaEventRecord(start));
  for (int r = 0; r < reps; ++r) {
    matmul<<<grid, block>>>(d_A, d_B, d_C, N);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));

  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  const double gflops = 2.0 * N * N * N * reps / (ms * 1e-3) / 1e9;
  std::printf("matmul N=%d: %.3f ms/iter, %.1f GFLOP/s\n", N, ms / reps, gflops);

  CUDA_CHECK(cudaMemcpy(h_C.data(), d_C, bytes, cudaMemcpyDeviceToHost));
  std::printf("C[0] = %.1f (expected %.1f)\n", h_C[0], 0.5f * N);

  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaFree(d_C));
  CUDA_CHECK(cudaFree(d_B));
  CUDA_CHECK(cudaFree(d_A));
  return 0;
}
