#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUBLAS_CHECK(call)                                                        \
    do {                                                                          \
        cublasStatus_t st_ = (call);                                              \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                       \
            std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, \
                         static_cast<int>(st_));                                  \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)
