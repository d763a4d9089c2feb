#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

inline void cuda_check(cudaError_t status, const char* what, const char* file, int line) {
    if (status != cudaSuccess) {
        std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, cudaGetErrorString(status));
        std::exit(EXIT_FAILURE);
    }
}
#define CUDA_TRY(call) cuda_check((call), #call, __FILE__, __LINE__)
