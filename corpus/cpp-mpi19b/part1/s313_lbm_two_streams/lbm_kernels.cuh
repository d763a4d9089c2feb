// D2Q9 lattice Boltzmann kernels (s313). Layout: f[q * plane + row * nx + x], rows 0 and ny + 1 are ghosts.
#pragma once
#include <cuda_runtime.h>

__constant__ int c_cx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int c_cy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ float c_w[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};

__device__ float feq(int q, float rho, float ux, float uy) {
  float cu = 3.0f * (c_cx[q] * ux + c_cy[q] * uy);
  return c_w[q] * rho * (1.0f + cu + 0.5f * cu * cu - 1.5f * (ux * ux + uy * uy));
}

// equilibrium with a small shear wave, every row including the ghosts
__global__ void lbm_init(float* f, int nx, int rows_total, size_t plane, int global_row0) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (x >= nx || r >= rows_total) return;
  float ux = 0.05f * __sinf(6.2831853f * (float)(global_row0 + r) / 256.0f);
  for (int q = 0; q < 9; ++q) f[q * plane + (size_t)r * nx + x] = feq(q, 1.0f, ux, 0.0f);
}

// pull streaming + BGK collision for nrows rows starting at the rows the two pointers point to
__global__ void collide_stream(const float* f_rows, float* fn_rows, int nx, size_t plane, int nrows, float omega) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (x >= nx || r >= nrows) return;
  float fin[9], rho = 0.0f, ux = 0.0f, uy = 0.0f;
  for (int q = 0; q < 9; ++q) {
    int xs = (x - c_cx[q] + nx) % nx;
    fin[q] = f_rows[q * plane + (long)(r - c_cy[q]) * nx + xs];
    rho += fin[q];
    ux += c_cx[q] * fin[q];
    uy += c_cy[q] * fin[q];
  }
  ux /= rho;
  uy /= rho;
  for (int q = 0; q < 9; ++q) fn_rows[q * plane + (size_t)r * nx + x] = fin[q] - omega * (fin[q] - feq(q, rho, ux, uy));
}

// the two edge rows of the new distribution into contiguous send buffers
__global__ void pack_rows(const float* row_lo, const float* row_hi, float* send_lo, float* send_hi, int nx,
                          size_t plane) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 9 * nx) return;
  int q = i / nx, x = i % nx;
  send_lo[i] = row_lo[q * plane + x];
  send_hi[i] = row_hi[q * plane + x];
}

__global__ void unpack_rows(const float* recv_lo, const float* recv_hi, float* ghost_lo, float* ghost_hi, int nx,
                            size_t plane) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 9 * nx) return;
  int q = i / nx, x = i % nx;
  ghost_lo[q * plane + x] = recv_lo[i];
  ghost_hi[q * plane + x] = recv_hi[i];
}

__global__ void lbm_mass(const float* f_rows, int nx, size_t plane, int nrows, double* mass) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y;
  if (x >= nx || r >= nrows) return;
  float m = 0.0f;
  for (int q = 0; q < 9; ++q) m += f_rows[q * plane + (size_t)r * nx + x];
  atomicAdd(mass, (double)m);
}
