#pragma once
// Kernels for conjugate gradient on the 1-D Poisson matrix tridiag(-1, 2, -1), with the
// scalars kept on the device so that no iteration needs the host.
#include <cuda_runtime.h>

__global__ void laplace_1d(const float* __restrict__ p, float* __restrict__ Ap, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float l = i > 0 ? p[i - 1] : 0.f;
  const float r = i < n - 1 ? p[i + 1] : 0.f;
  Ap[i] = 2.f * p[i] - l - r;
}

// *out += a . b (caller zeroes *out)
__global__ void dot_accumulate(const float* __restrict__ a, const float* __restrict__ b, float* out, int n) {
  __shared__ float s[256];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += a[i] * b[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

// scal[0] = r.r, scal[1] = p.Ap, scal[2] = new r.r
__global__ void update_x_r(float* __restrict__ x, float* __restrict__ r, const float* __restrict__ p,
                           const float* __restrict__ Ap, const float* __restrict__ scal, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float alpha = scal[0] / scal[1];
  x[i] += alpha * p[i];
  r[i] -= alpha * Ap[i];
}

__global__ void update_p(float* __restrict__ p, const float* __restrict__ r, const float* __restrict__ scal, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i] = r[i] + (scal[2] / scal[0]) * p[i];
}

__global__ void roll_scalars(float* scal) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    scal[0] = scal[2];
    scal[1] = 0.f;
    scal[2] = 0.f;
  }
}
