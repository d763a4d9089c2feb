// case: a saxpy driver wraps every call in CUDA_CHECK but copies the result back with a bare cudaMemcpy whose status is dropped.
// expect: unchecked_cuda_result=1
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t err_ = (call);                                                \
    if (err_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__,   \
                   __LINE__, cudaGetErrorString(err_));                       \
      std::exit(EXIT_FAILURE);                                                \
    }                                                                         \
  } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  std::vector<float> h_x(n, 1.0f), h_y(n, 2.0f);

  float* d_x = nullptr;
  float* d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, bytes));
  CUDA_CHECK(cudaMalloc(&d_y, bytes));
  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_y, h_y.data(), bytes, cudaMemcpyHostToDevice));

  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  saxpy<<<blocks, threads>>>(n, 2.0f, d_x, d_y);
  CUDA_CHECK(cudaGetLastError());

  cudaMemcpy(h_y.data(), d_y, bytes, cudaMemcpyDeviceToHost);  // EXPECT: unchecked_cuda_result

  float max_err = 0.0f;
  for (int i = 0; i < n; ++i) {
    max_err = std::max(max_err, std::fabs(h_y[i] - 4.0f));
  }
  std::printf("saxpy n=%d max error: %g\n", n, max_err);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  return max_err == 0.0f ? EXIT_SUCCESS : EXIT_FAILURE;
}
