#pragma once
// Per-solve scratch vectors for CG. The destructor waits for the solver's stream before
// releasing them, so a workspace may go out of scope right after the last launch.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)

struct CgWorkspace {
  CgWorkspace(int n, cudaStream_t s) : stream(s) {
    CUDA_CHECK(cudaMalloc(&r, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&Ap, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&scal, 3 * sizeof(float)));
  }
  ~CgWorkspace() {
    cudaStreamSynchronize(stream);
    cudaFree(r);
    cudaFree(p);
    cudaFree(Ap);
    cudaFree(scal);
  }
  CgWorkspace(const CgWorkspace&) = delete;
  CgWorkspace& operator=(const CgWorkspace&) = delete;

  cudaStream_t stream;
  float* r = nullptr;
  float* p = nullptr;
  float* Ap = nullptr;
  float* scal = nullptr;
};
