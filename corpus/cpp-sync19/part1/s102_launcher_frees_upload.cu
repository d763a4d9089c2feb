// case: fastfields-style launcher uploads one source term, launches an axpy on the legacy stream and cudaFrees the upload right after the launch, relying on cudaFree to wait for the kernel
// expect: relies_on_implicit_sync=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n",                     \
                   cudaGetErrorString(err_), __FILE__, __LINE__);          \
      std::exit(EXIT_FAILURE);                                             \
    }                                                                      \
  } while (0)

__global__ void axpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

// Adds a * h_src to the field held in d_field. The upload buffer is transient.
static void accumulate_source(float* d_field, const float* h_src, float a, int n) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* d_src = nullptr;
  CUDA_CHECK(cudaMalloc(&d_src, bytes));
  CUDA_CHECK(cudaMemcpy(d_src, h_src, bytes, cudaMemcpyHostToDevice));
  axpy<<<(n + 255) / 256, 256>>>(a, d_src, d_field, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaFree(d_src));  // EXPECT: relies_on_implicit_sync
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 22);
  const int terms = 4;
  const float coeff[terms] = {1.0f, 0.5f, 0.25f, 0.125f};

  std::vector<std::vector<float>> sources(terms, std::vector<float>(n));
  for (int t = 0; t < terms; ++t)
    for (int i = 0; i < n; ++i) sources[t][i] = std::sin(0.001f * i * (t + 1));

  float* d_field = nullptr;
  CUDA_CHECK(cudaMalloc(&d_field, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_field, 0, n * sizeof(float)));

  for (int t = 0; t < terms; ++t) accumulate_source(d_field, sources[t].data(), coeff[t], n);

  std::vector<float> field(n);
  CUDA_CHECK(cudaMemcpy(field.data(), d_field, n * sizeof(float), cudaMemcpyDeviceToHost));
  double norm2 = 0.0;
  for (int i = 0; i < n; ++i) norm2 += double(field[i]) * field[i];
  std::printf("|field| = %.6f\n", std::sqrt(norm2));

  CUDA_CHECK(cudaFree(d_field));
  return 0;
}
