#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

struct HostCsr {
    int rows = 0;
    std::vector<int> row_ptr;
    std::vector<int> col_idx;
    std::vector<float> vals;
};

class DeviceCsr {
public:
    explicit DeviceCsr(const HostCsr& h) : rows_(h.rows), nnz_((int)h.vals.size()) {
        CUDA_CHECK(cudaMalloc(&row_ptr_, (rows_ + 1) * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&col_idx_, nnz_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&vals_, nnz_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&x_, rows_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&y_, rows_ * sizeof(float)));
        // one-time structure upload: blocking copies
        CUDA_CHECK(cudaMemcpy(row_ptr_, h.row_ptr.data(), (rows_ + 1) * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(col_idx_, h.col_idx.data(), nnz_ * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(vals_, h.vals.data(), nnz_ * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize()); // staged pageable uploads have landed before any stream reads them
    }
    ~DeviceCsr() {
        cudaFree(row_ptr_); cudaFree(col_idx_); cudaFree(vals_); cudaFree(x_); cudaFree(y_);
    }
    DeviceCsr(const DeviceCsr&) = delete;
    DeviceCsr& operator=(const DeviceCsr&) = delete;

    // per-solve right-hand side: the vector lives in a std::vector (pageable)
    void set_x(const std::vector<float>& x, cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(x_, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice, s)); // EXPECT: pageable_async_copy
    }

    int rows() const { return rows_; }
    const int* row_ptr() const { return row_ptr_; }
    const int* col_idx() const { return col_idx_; }
    const float* vals() const { return vals_; }
    const float* x() const { return x_; }
    float* y() { return y_; }

private:
    int rows_;
    int nnz_;
    int* row_ptr_ = nullptr;
    int* col_idx_ = nullptr;
    float* vals_ = nullptr;
    float* x_ = nullptr;
    float* y_ = nullptr;
};
