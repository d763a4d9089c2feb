#pragma once
// Projects row batches onto a fixed PCA basis: Z = (X - mu) * V_k.
// Synchronous API: everything runs on the default stream and project() returns host data.
#include <vector>
#include "cuda_check.h"

__global__ void centre_rows(float* x, const float* mean, int dim, int rows) {
    // x is column-major dim x rows: one column per sample
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < static_cast<size_t>(dim) * rows) x[i] -= mean[i % dim];
}

class PcaProjector {
public:
    PcaProjector(int dim, int components, int max_rows,
                 const std::vector<float>& basis,  // dim x components, column-major
                 const std::vector<float>& mean)   // dim
        : dim_(dim), k_(components), max_rows_(max_rows) {
        CUBLAS_CHECK(cublasCreate(&blas_));
        CUDA_CHECK(cudaMalloc(&d_basis_, basis.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_mean_, mean.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_x_, static_cast<size_t>(dim_) * max_rows_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_z_, static_cast<size_t>(k_) * max_rows_ * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(d_basis_, basis.data(), basis.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_mean_, mean.data(), mean.size() * sizeof(float), cudaMemcpyHostToDevice));
    }

    ~PcaProjector() {
        CUDA_CHECK(cudaFree(d_z_));
        CUDA_CHECK(cudaFree(d_x_));
        CUDA_CHECK(cudaFree(d_mean_));
        CUDA_CHECK(cudaFree(d_basis_));
        CUBLAS_CHECK(cublasDestroy(blas_));
    }

    PcaProjector(const PcaProjector&) = delete;
    PcaProjector& operator=(const PcaProjector&) = delete;

    // x: rows samples of dim floats; returns rows x k scores (column-major k x rows).
    std::vector<float> project(const std::vector<float>& x, int rows) {
        const size_t x_elems = static_cast<size_t>(dim_) * rows;
        CUDA_CHECK(cudaMemcpy(d_x_, x.data(), x_elems * sizeof(float), cudaMemcpyHostToDevice));
        centre_rows<<<static_cast<unsigned>((x_elems + 255) / 256), 256>>>(d_x_, d_mean_, dim_, rows);
        CUDA_CHECK(cudaGetLastError());

        // Z (k x rows) = V^T (k x dim) * Xc (dim x rows)
        const float one = 1.0f, zero = 0.0f;
        CUBLAS_CHECK(cublasSgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, k_, rows, dim_, &one,
                                 d_basis_, dim_, d_x_, dim_, &zero, d_z_, k_));

        std::vector<float> z(static_cast<size_t>(k_) * rows);
        CUDA_CHECK(cudaMemcpy(z.data(), d_z_, z.size() * sizeof(float), cudaMemcpyDeviceToHost));
        return z;
    }

private:
    int dim_, k_, max_rows_;
    cublasHandle_t blas_ = nullptr;
    float* d_basis_ = nullptr;
    float* d_mean_ = nullptr;
    float* d_x_ = nullptr;
    float* d_z_ = nullptr;
};
