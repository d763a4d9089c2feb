#pragma once
// Per-camera GPU resources for the luminance-histogram stage.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

constexpr int kHistBins = 256;

// device-side histogram shared by all launches of the stage
__device__ unsigned int g_luma_hist[kHistBins];

struct FrameBuffers {
  uchar4* h_staging = nullptr;   // pinned, portable: filled by the capture thread
  uchar4* d_frame = nullptr;     // device copy of the frame
  unsigned int* d_hist = nullptr;  // address of g_luma_hist
  size_t pixels = 0;
};

inline cudaError_t frame_buffers_create(FrameBuffers& fb, int width, int height) {
  fb.pixels = size_t(width) * height;
  cudaError_t err = cudaHostAlloc(&fb.h_staging, fb.pixels * sizeof(uchar4), cudaHostAllocPortable);
  if (err != cudaSuccess) return err;
  err = cudaMalloc(&fb.d_frame, fb.pixels * sizeof(uchar4));
  if (err != cudaSuccess) {
    cudaFreeHost(fb.h_staging);
    fb.h_staging = nullptr;
    return err;
  }
  return cudaGetSymbolAddress(reinterpret_cast<void**>(&fb.d_hist), g_luma_hist);
}

// Releases everything the struct holds; safe on a partially created struct.
inline void frame_buffers_destroy(FrameBuffers& fb) {
  if (fb.d_frame) cudaFree(fb.d_frame);
  if (fb.h_staging) cudaFree(fb.h_staging);  // EXPECT: mismatched_free
  if (fb.d_hist) cudaFree(fb.d_hist);  // EXPECT: mismatched_free
  fb = FrameBuffers{};
}
