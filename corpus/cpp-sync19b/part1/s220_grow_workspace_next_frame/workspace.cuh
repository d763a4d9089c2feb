// Grow-only scratch workspace shared by the frames of a video denoiser.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>

struct Workspace {
  void* ptr = nullptr;
  size_t capacity = 0;
};

// Makes ws hold at least `bytes`. Reallocates (cudaFree + cudaMalloc) when it is too small.
inline cudaError_t ensure_capacity(Workspace& ws, size_t bytes) {
  if (bytes <= ws.capacity) return cudaSuccess;
  cudaFree(ws.ptr);
  ws.ptr = nullptr;
  ws.capacity = 0;
  cudaError_t err = cudaMalloc(&ws.ptr, bytes);
  if (err == cudaSuccess) ws.capacity = bytes;
  return err;
}

inline void release(Workspace& ws) {
  cudaFree(ws.ptr);
  ws.ptr = nullptr;
  ws.capacity = 0;
}
