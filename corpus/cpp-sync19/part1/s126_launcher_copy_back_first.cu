// case: near miss: a saxpy launcher on the legacy stream copies the result back with a blocking cudaMemcpy (which waits for the legacy stream) before it frees its device buffers
// expect: none
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>
#include <cuda_runtime.h>

static void throw_on_error(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

__global__ void saxpy_kernel(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// Returns a * x + y computed on the GPU.
static std::vector<float> saxpy(float a, const std::vector<float>& x, const std::vector<float>& y) {
  const int n = static_cast<int>(x.size());
  const size_t bytes = x.size() * sizeof(float);
  float *d_x = nullptr, *d_y = nullptr;
  if (cudaMalloc(&d_x, bytes) != cudaSuccess) throw std::runtime_error("cudaMalloc x");
  if (cudaMalloc(&d_y, bytes) != cudaSuccess) {
    cudaFree(d_x);
    throw std::runtime_error("cudaMalloc y");
  }
  std::vector<float> out(x.size());
  cudaError_t err = cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemcpy(d_y, y.data(), bytes, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) {
    saxpy_kernel<<<256, 256>>>(n, a, d_x, d_y);
    err = cudaMemcpy(out.data(), d_y, bytes, cudaMemcpyDeviceToHost);
  }
  cudaFree(d_x);
  cudaFree(d_y);
  throw_on_error(err, "saxpy");
  return out;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 24);
  std::vector<float> x(n, 1.f), y(n, 2.f);
  try {
    const std::vector<float> r = saxpy(3.f, x, y);
    double maxerr = 0.0;
    for (int i = 0; i < n; ++i) maxerr = std::max(maxerr, double(std::abs(r[i] - 5.f)));
    std::printf("max error %.2e\n", maxerr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return EXIT_FAILURE;
  }
  return 0;
}
