// Device allocator of a small tensor library: every tensor and every temporary goes through it,
// so the library can report how much device memory it holds.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>

namespace tl {

class DeviceAllocator {
 public:
  void* allocate(size_t bytes) {
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
      std::fprintf(stderr, "tl: cudaMalloc(%zu) failed: %s\n", bytes, cudaGetErrorString(err));
      return nullptr;
    }
    live_bytes_ += bytes;
    ++live_blocks_;
    return p;
  }

  // Gives the block back to the driver. No stream argument: the library has always relied on
  // cudaFree waiting for the device.
  void release(void* p, size_t bytes) {
    if (p == nullptr) return;
    cudaFree(p);
    live_bytes_ -= bytes;
    --live_blocks_;
  }

  size_t live_bytes() const { return live_bytes_; }
  int live_blocks() const { return live_blocks_; }

 private:
  size_t live_bytes_ = 0;
  int live_blocks_ = 0;
};

}  // namespace tl
