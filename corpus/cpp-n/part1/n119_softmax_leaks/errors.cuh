// Error helpers of case n119: CUDA_TRY returns the failing status from the enclosing function.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_TRY(call)                                                          \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call,            \
              cudaGetErrorString(e_));                                          \
      return e_;                                                                \
    }                                                                           \
  } while (0)

#define CUDA_MAIN_CHECK(call)                                                   \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call,            \
              cudaGetErrorString(e_));                                          \
      return 1;                                                                 \
    }                                                                           \
  } while (0)
