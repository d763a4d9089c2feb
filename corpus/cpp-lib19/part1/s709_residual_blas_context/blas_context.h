#pragma once
// Small helpers shared by the solver drivers: handle creation with the project's defaults,
// and a synchronous upload into fresh device memory.
#include "cuda_check.h"

inline cublasHandle_t make_blas_handle() {
    cublasHandle_t handle = nullptr;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH));
    CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
    return handle;
}

// Copies `count` floats from pinned host memory into a new device buffer and waits for it.
inline float* upload(cudaStream_t stream, const float* host_pinned, size_t count) {
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, count * sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(d, host_pinned, count * sizeof(float), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return d;
}
