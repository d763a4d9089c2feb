// Stream helpers shared by the field-interpolation launchers.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>

// Blocks until everything enqueued on `s` is done; reports (but does not throw on) errors.
inline cudaError_t finish_stream(cudaStream_t s, const char* what) {
  cudaError_t err = cudaStreamSynchronize(s);
  if (err != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
  return err;
}
