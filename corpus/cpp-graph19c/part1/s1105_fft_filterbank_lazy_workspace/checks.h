#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cufft.h>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t status_ = (call);                                              \
        if (status_ != cudaSuccess) {                                              \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                         cudaGetErrorString(status_));                             \
            std::abort();                                                          \
        }                                                                          \
    } while (0)

#define CUFFT_CHECK(call)                                                          \
    do {                                                                           \
        cufftResult status_ = (call);                                              \
        if (status_ != CUFFT_SUCCESS) {                                            \
            std::fprintf(stderr, "%s:%d: %s: cuFFT error %d\n", __FILE__,         \
                         __LINE__, #call, static_cast<int>(status_));              \
            std::abort();                                                          \
        }                                                                          \
    } while (0)
