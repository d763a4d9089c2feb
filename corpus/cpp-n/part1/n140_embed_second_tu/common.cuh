// Shared declarations of case n140.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

// Defined in loader.cu.
void load_embeddings(float* d_table, size_t rows, size_t dim, cudaStream_t s);
void alloc_positions(int** d_pos, size_t n, size_t rows, cudaStream_t s);
