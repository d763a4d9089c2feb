#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      std::exit(EXIT_FAILURE);                                             \
    }                                                                      \
  } while (0)

__global__ void spmv_residual(const int *rowptr, const int *cols, const float *vals, const float *x,
                              const float *b, float *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float ax = 0.f;
  for (int k = rowptr[i]; k < rowptr[i + 1]; ++k) ax += vals[k] * x[cols[k]];
  r[i] = b[i] - ax;
}

__global__ void extract_inv_diag(const int *rowptr, const int *cols, const float *vals,
                                 float *inv_diag, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float d = 1.f;
  for (int k = rowptr[i]; k < rowptr[i + 1]; ++k)
    if (cols[k] == i) d = vals[k];
  inv_diag[i] = 1.f / d;
}

__global__ void jacobi_update(float *x, const float *r, const float *inv_diag, float omega, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += omega * inv_diag[i] * r[i];
}

class JacobiSolver {
 public:
  JacobiSolver(const std::vector<int> &rowptr, const std::vector<int> &cols,
               const std::vector<float> &vals, const std::vector<float> &b)
      : n_((int)b.size()), nnz_((int)vals.size()) {
    CUDA_CHECK(cudaMalloc(&d_rowptr_, (n_ + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_cols_, nnz_ * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_vals_, nnz_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b_, n_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x_, n_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_r_, n_ * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_rowptr_, rowptr.data(), (n_ + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_cols_, cols.data(), nnz_ * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vals_, vals.data(), nnz_ * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b_, b.data(), n_ * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_x_, 0, n_ * sizeof(float)));
  }

  ~JacobiSolver() {
    cudaFree(d_rowptr_);
    cudaFree(d_cols_);
    cudaFree(d_vals_);
    cudaFree(d_b_);
    cudaFree(d_x_);
    cudaFree(d_r_);
    cudaFree(d_inv_diag_);
  }

  void setup() {
    extract_inv_diag<<<blocks(), kBlock>>>(d_rowptr_, d_cols_, d_vals_, d_inv_diag_, n_); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaGetLastError());
  }

  void iterate(int sweeps, float omega) {
    for (int s = 0; s < sweeps; ++s) {
      spmv_residual<<<blocks(), kBlock>>>(d_rowptr_, d_cols_, d_vals_, d_x_, d_b_, d_r_, n_);
      jacobi_update<<<blocks(), kBlock>>>(d_x_, d_r_, d_inv_diag_, omega, n_); // EXPECT: unallocated_pointer
    }
    CUDA_CHECK(cudaGetLastError());
  }

  std::vector<float> solution() const {
    std::vector<float> x(n_);
    CUDA_CHECK(cudaMemcpy(x.data(), d_x_, n_ * sizeof(float), cudaMemcpyDeviceToHost));
    return x;
  }

 private:
  static constexpr int kBlock = 256;
  int blocks() const { return (n_ + kBlock - 1) / kBlock; }

  int n_, nnz_;
  int *d_rowptr_ = nullptr;
  int *d_cols_ = nullptr;
  float *d_vals_ = nullptr;
  float *d_b_ = nullptr;
  float *d_x_ = nullptr;
  float *d_r_ = nullptr;
  float *d_inv_diag_ = nullptr;
};
