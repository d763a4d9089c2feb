// cuda_check.h: error handling for the layernorm tool.
#pragma once
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t status_ = (call);                                             \
    if (status_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call,    \
                   cudaGetErrorString(status_));                              \
      std::exit(EXIT_FAILURE);                                                \
    }                                                                         \
  } while (0)

// Reports a failed launch of the kernel just enqueued.
inline void check_last(const char* what) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    std::fprintf(stderr, "launch of %s failed: %s\n", what, cudaGetErrorString(status));
    std::exit(EXIT_FAILURE);
  }
}
