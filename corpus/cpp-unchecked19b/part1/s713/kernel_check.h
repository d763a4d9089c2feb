// kernel_check.h: status and launch checking for the softmax tools.
#pragma once
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                   cudaGetErrorString(e_));                                  \
      std::exit(EXIT_FAILURE);                                               \
    }                                                                        \
  } while (0)

// Checks the launch that was just made; with SYNC_LAUNCHES defined it also
// waits for the kernel so that faults are reported at the right line.
#ifdef SYNC_LAUNCHES
#define KERNEL_CHECK()                                                       \
  do {                                                                       \
    CUDA_CHECK(cudaGetLastError());                                          \
    CUDA_CHECK(cudaDeviceSynchronize());                                     \
  } while (0)
#else
#define KERNEL_CHECK() CUDA_CHECK(cudaGetLastError())
#endif
