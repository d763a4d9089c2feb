// Abort-on-error wrappers for the k-means driver.
#pragma once
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <mpi.h>

#define CHECK_CUDA(x)                                                             \
  do {                                                                            \
    const cudaError_t status_ = (x);                                              \
    if (status_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(status_));   \
      std::exit(EXIT_FAILURE);                                                    \
    }                                                                             \
  } while (0)

#define CHECK_MPI(x)                                                              \
  do {                                                                            \
    const int status_ = (x);                                                      \
    if (status_ != MPI_SUCCESS) {                                                 \
      std::fprintf(stderr, "%s failed: MPI error %d\n", #x, status_);             \
      MPI_Abort(MPI_COMM_WORLD, status_);                                         \
      std::exit(EXIT_FAILURE);                                                    \
    }                                                                             \
  } while (0)
