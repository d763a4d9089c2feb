// 1D explicit diffusion solver with spatially varying coefficients. The coefficient field is only
// needed while time-stepping, so the driver program drops it before the output phase.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <utility>

__global__ void diffusion_step_kernel(const float* u, const float* kappa, float* u_next, int n, float dt_over_dx2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    float lap = u[i - 1] - 2.0f * u[i] + u[i + 1];
    u_next[i] = u[i] + dt_over_dx2 * kappa[i] * lap;
  }
}

class DiffusionSolver {
 public:
  bool init(const float* h_u0, const float* h_kappa, int n, float dt_over_dx2) {
    n_ = n;
    dt_over_dx2_ = dt_over_dx2;
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    if (cudaStreamCreate(&stream_) != cudaSuccess) return false;
    cudaMalloc(&d_u_, bytes);
    cudaMalloc(&d_u_next_, bytes);
    cudaMalloc(&d_kappa_, bytes);
    cudaMemcpy(d_u_, h_u0, bytes, cudaMemcpyHostToDevice);
    // boundary values are fixed: both buffers start as the initial condition
    cudaMemcpy(d_u_next_, h_u0, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_kappa_, h_kappa, bytes, cudaMemcpyHostToDevice);
    return true;
  }

  // enqueues `steps` time steps on the solver's stream and returns at once
  void advance(int steps) {
    const int block = 256;
    const int grid = (n_ + block - 1) / block;
    for (int s = 0; s < steps; ++s) {
      diffusion_step_kernel<<<grid, block, 0, stream_>>>(d_u_, d_kappa_, d_u_next_, n_, dt_over_dx2_);
      std::swap(d_u_, d_u_next_);
    }
  }

  // frees the coefficient field to make room for the output phase
  void release_coefficients() {
    cudaFree(d_kappa_);
    d_kappa_ = nullptr;
  }

  void download(float* h_u) const {
    cudaMemcpy(h_u, d_u_, static_cast<size_t>(n_) * sizeof(float), cudaMemcpyDeviceToHost);
  }

  void destroy() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_u_);
    cudaFree(d_u_next_);
    cudaFree(d_kappa_);  // nullptr after release_coefficients(): a no-op
    cudaStreamDestroy(stream_);
  }

 private:
  float* d_u_ = nullptr;
  float* d_u_next_ = nullptr;
  float* d_kappa_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int n_ = 0;
  float dt_over_dx2_ = 0.0f;
};
