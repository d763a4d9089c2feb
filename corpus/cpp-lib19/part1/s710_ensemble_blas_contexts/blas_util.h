#pragma once
// Per-stream cuBLAS handles: one handle per worker stream, bound at creation.
#include "cuda_check.h"

inline cublasHandle_t make_blas_handle(cudaStream_t stream) {
    cublasHandle_t handle = nullptr;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH));
    return handle;
}

__global__ void add_bias_tanh(float* y, const float* bias, int rows, int cols) {
    // y is column-major rows x cols; bias has one entry per row
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < static_cast<size_t>(rows) * cols) y[i] = tanhf(y[i] + bias[i % rows]);
}
