// case: managed convergence record written by the residual kernel; the host frees a finished temporary (a cudaFree of other memory) but then calls cudaDeviceSynchronize before reading and resetting the record
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

struct Convergence {
  float max_residual;
  int iteration;
};

__global__ void smooth_kernel(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) out[i] = 0.5f * (in[i - 1] + in[i + 1]);
  else if (i == 0 || i == n - 1) out[i] = in[i];
}

__global__ void residual_kernel(const float* a, const float* b, int n, Convergence* conv, int it) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(reinterpret_cast<int*>(&conv->max_residual), __float_as_int(fabsf(a[i] - b[i])));
  if (i == 0) conv->iteration = it;
}

int main() {
  const int n = 1 << 20;
  std::vector<float> h_u(n);
  for (int i = 0; i < n; ++i) h_u[i] = (i % 2) ? 1.0f : 0.0f;

  float *d_u = nullptr, *d_v = nullptr;
  cudaMalloc(&d_u, n * sizeof(float));
  cudaMalloc(&d_v, n * sizeof(float));
  cudaMemcpy(d_u, h_u.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  Convergence* conv = nullptr;
  cudaMallocManaged(&conv, sizeof(Convergence));
  conv->max_residual = 0.0f;
  conv->iteration = -1;

  cudaStream_t stream;
  cudaStreamCreate(&stream);

  float* d_halo = nullptr;  // temporary of the setup phase, never used by a kernel below
  cudaMalloc(&d_halo, 4096 * sizeof(float));
  cudaMemset(d_halo, 0, 4096 * sizeof(float));

  smooth_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_u, d_v, n);
  residual_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_u, d_v, n, conv, 1);

  cudaFree(d_halo);
  cudaDeviceSynchronize();
  std::printf("iteration %d: max residual %f\n", conv->iteration, conv->max_residual);
  conv->max_residual = 0.0f;  // ready for the next sweep

  cudaFree(conv);
  cudaFree(d_u);
  cudaFree(d_v);
  cudaStreamDestroy(stream);
  return 0;
}
