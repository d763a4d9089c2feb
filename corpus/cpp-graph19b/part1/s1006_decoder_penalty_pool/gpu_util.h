#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define GPU_TRY(call)                                                                          \
  do {                                                                                         \
    cudaError_t rc_ = (call);                                                                  \
    if (rc_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(rc_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

// Blocks the host until everything enqueued on `s` has run.
inline void stream_wait(cudaStream_t s) { GPU_TRY(cudaStreamSynchronize(s)); }

// Stream-ordered scratch memory: safe to take and give back while `s` is being captured, where
// it becomes an allocation node and a free node of the graph.
struct Scratch {
  void* ptr = nullptr;
  size_t bytes = 0;
};

inline Scratch scratch_acquire(size_t bytes, cudaStream_t s) {
  Scratch sc;
  sc.bytes = bytes;
  GPU_TRY(cudaMallocAsync(&sc.ptr, bytes, s));
  return sc;
}

inline void scratch_release(Scratch& sc, cudaStream_t s) {
  GPU_TRY(cudaFreeAsync(sc.ptr, s));
  sc.ptr = nullptr;
  sc.bytes = 0;
}
