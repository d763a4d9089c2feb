// case: trapezoidal integration whose sample points are produced on the device by a linspace kernel before the evaluation kernel reads them, and whose samples a reduction kernel reads in turn
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define NSAMPLES (1 << 22)
#define BLOCK 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

template <typename T>
__global__ void linspace(T *x, T a, T b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = a + (b - a) * (T)i / (T)(n - 1);
}

__global__ void eval_integrand(const double *x, double *fx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) fx[i] = exp(-x[i] * x[i]);
}

__global__ void trapezoid_sum(const double *fx, double h, int n, double *out) {
  __shared__ double s[BLOCK];
  double v = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - 1; i += gridDim.x * blockDim.x)
    v += 0.5 * h * (fx[i] + fx[i + 1]);
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

int main() {
  const double a = -6.0, b = 6.0;
  double *d_x, *d_fx, *d_integral;
  CUDA_CHECK(cudaMalloc(&d_x, NSAMPLES * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_fx, NSAMPLES * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_integral, sizeof(double)));
  CUDA_CHECK(cudaMemset(d_integral, 0, sizeof(double)));

  linspace<double><<<1024, BLOCK>>>(d_x, a, b, NSAMPLES);
  eval_integrand<<<(NSAMPLES + BLOCK - 1) / BLOCK, BLOCK>>>(d_x, d_fx, NSAMPLES);
  trapezoid_sum<<<1024, BLOCK>>>(d_fx, (b - a) / (NSAMPLES - 1), NSAMPLES, d_integral);
  CUDA_CHECK(cudaGetLastError());

  double integral = 0.0;
  CUDA_CHECK(cudaMemcpy(&integral, d_integral, sizeof(double), cudaMemcpyDeviceToHost));
  printf("integral of exp(-x^2) over [-6, 6] = %.12f (sqrt(pi) = %.12f)\n", integral, sqrt(M_PI));

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_fx));
  CUDA_CHECK(cudaFree(d_integral));
  return 0;
}
