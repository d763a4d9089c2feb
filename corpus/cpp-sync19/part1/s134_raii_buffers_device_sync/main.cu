// case: near miss: 1-D advection-diffusion with CudaBuffer RAII owners in main on a non-blocking stream; main waits with cudaDeviceSynchronize and copies the result back before returning, so the destructors' cudaFree at the end of main wait for nothing
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "cuda_buffer.cuh"

__global__ void upwind_step(const float* __restrict__ u, float* __restrict__ u_next, int n,
                            float courant, float diffusion) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int l = (i + n - 1) % n, r = (i + 1) % n;
  u_next[i] = u[i] - courant * (u[i] - u[l]) + diffusion * (u[l] - 2.f * u[i] + u[r]);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
  const int steps = 1000;

  std::vector<float> u0(n);
  for (int i = 0; i < n; ++i) u0[i] = std::exp(-std::pow((i - n / 4) / (0.01f * n), 2.f));

  CudaBuffer<float> a(n), b(n);
  a.copy_from(u0);
  CUDA_CHECK(cudaDeviceSynchronize());

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* cur = a.get();
  float* nxt = b.get();
  for (int s = 0; s < steps; ++s) {
    upwind_step<<<(n + 255) / 256, 256, 0, stream>>>(cur, nxt, n, 0.4f, 0.05f);
    std::swap(cur, nxt);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<float> u;
  (steps % 2 == 0 ? a : b).copy_to(u);
  double mass = 0.0;
  for (float v : u) mass += v;
  std::printf("mass after %d steps: %.5f\n", steps, mass);

  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
