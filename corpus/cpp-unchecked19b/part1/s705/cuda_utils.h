// cuda_utils.h: error-checking and allocation helpers shared by the histogram tools.
#pragma once
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }

inline void gpuAssert(cudaError_t code, const char* file, int line, bool abort = true) {
  if (code != cudaSuccess) {
    std::fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
    if (abort) std::exit(code);
  }
}

template <typename T>
inline T* device_alloc(size_t count) {
  T* p = nullptr;
  gpuErrchk(cudaMalloc(&p, count * sizeof(T)));
  return p;
}
