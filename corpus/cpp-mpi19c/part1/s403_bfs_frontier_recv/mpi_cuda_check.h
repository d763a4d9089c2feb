// Error checking used by every call of the BFS driver: any failure aborts the job.
#pragma once
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <mpi.h>

#define CHECK_CUDA(call)                                                          \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "[cuda] %s at %s:%d\n", cudaGetErrorString(e_),        \
                   __FILE__, __LINE__);                                           \
      std::abort();                                                               \
    }                                                                             \
  } while (0)

#define CHECK_MPI(call)                                                           \
  do {                                                                            \
    int e_ = (call);                                                              \
    if (e_ != MPI_SUCCESS) {                                                      \
      char msg_[MPI_MAX_ERROR_STRING];                                            \
      int len_ = 0;                                                               \
      MPI_Error_string(e_, msg_, &len_);                                          \
      std::fprintf(stderr, "[mpi] %s at %s:%d\n", msg_, __FILE__, __LINE__);      \
      MPI_Abort(MPI_COMM_WORLD, e_);                                              \
      std::abort();                                                               \
    }                                                                             \
  } while (0)
