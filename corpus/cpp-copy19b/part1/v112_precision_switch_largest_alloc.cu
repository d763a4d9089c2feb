// case: a templated vector normalisation that allocates its device buffer for doubles or floats depending on a command-line switch and copies the matching byte count under the same switch; the double-sized copy fits the largest allocation
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define N (1 << 20)
#define THREADS 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));          \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

template <typename T>
__global__ void scale_shift(T *x, T scale, T shift, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * scale + shift;
}

int main(int argc, char **argv) {
  bool use_fp64 = argc > 1 && strcmp(argv[1], "--fp64") == 0;

  std::vector<double> h_d(N);
  std::vector<float> h_f(N);
  for (int i = 0; i < N; ++i) {
    h_d[i] = 0.001 * (i % 1000);
    h_f[i] = 0.001f * (i % 1000);
  }

  void *d_buf = nullptr;
  if (use_fp64)
    CUDA_CHECK(cudaMalloc(&d_buf, N * sizeof(double)));
  else
    CUDA_CHECK(cudaMalloc(&d_buf, N * sizeof(float)));

  const int blocks = (N + THREADS - 1) / THREADS;
  if (use_fp64) {
    CUDA_CHECK(cudaMemcpy(d_buf, h_d.data(), N * sizeof(double), cudaMemcpyHostToDevice));
    scale_shift<double><<<blocks, THREADS>>>((double *)d_buf, 2.0, -1.0, N);
    CUDA_CHECK(cudaMemcpy(h_d.data(), d_buf, N * sizeof(double), cudaMemcpyDeviceToHost));
  } else {
    CUDA_CHECK(cudaMemcpy(d_buf, h_f.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    scale_shift<float><<<blocks, THREADS>>>((float *)d_buf, 2.0f, -1.0f, N);
    CUDA_CHECK(cudaMemcpy(h_f.data(), d_buf, N * sizeof(float), cudaMemcpyDeviceToHost));
  }
  CUDA_CHECK(cudaGetLastError());

  double last = use_fp64 ? h_d[N - 1] : (double)h_f[N - 1];
  printf("%s: x[N-1] = %f\n", use_fp64 ? "fp64" : "fp32", last);

  CUDA_CHECK(cudaFree(d_buf));
  return 0;
}
