#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cudnn.h>

#define CUDA_CHECK(expr)                                                        \
  do {                                                                          \
    cudaError_t e_ = (expr);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "[cuda] %s (%s:%d)\n", cudaGetErrorString(e_),       \
                   __FILE__, __LINE__);                                         \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

#define CUDNN_CHECK(expr)                                                       \
  do {                                                                          \
    cudnnStatus_t s_ = (expr);                                                  \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                           \
      std::fprintf(stderr, "[cudnn] %s (%s:%d)\n", cudnnGetErrorString(s_),     \
                   __FILE__, __LINE__);                                         \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)
