#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t cuda_check_err_ = (call);                                      \
        if (cuda_check_err_ != cudaSuccess) {                                      \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,    \
                         #call, cudaGetErrorString(cuda_check_err_));              \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)
