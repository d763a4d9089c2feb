// Tagged allocations for the simulation's buffers: the release function is
// chosen by the same tag that chose the allocator.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "pool: %s\n", cudaGetErrorString(e_));               \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

enum class MemKind { Device, Pinned, Managed, Host };

struct Block {
  void* ptr = nullptr;
  size_t bytes = 0;
  MemKind kind = MemKind::Host;
};

inline Block acquire(MemKind kind, size_t bytes) {
  Block b;
  b.bytes = bytes;
  b.kind = kind;
  switch (kind) {
    case MemKind::Device:
      CUDA_CHECK(cudaMalloc(&b.ptr, bytes));
      break;
    case MemKind::Pinned:
      CUDA_CHECK(cudaHostAlloc(&b.ptr, bytes, cudaHostAllocPortable));
      break;
    case MemKind::Managed:
      CUDA_CHECK(cudaMallocManaged(&b.ptr, bytes, cudaMemAttachGlobal));
      break;
    case MemKind::Host:
      b.ptr = std::malloc(bytes);
      break;
  }
  return b;
}

inline void release(Block& b) {
  if (!b.ptr) return;
  switch (b.kind) {
    case MemKind::Device:
    case MemKind::Managed:
      cudaFree(b.ptr);
      break;
    case MemKind::Pinned:
      cudaFreeHost(b.ptr);
      break;
    case MemKind::Host:
      std::free(b.ptr);
      break;
  }
  b.ptr = nullptr;
}

class BlockPool {
 public:
  Block& get(MemKind kind, size_t bytes) {
    blocks_.push_back(acquire(kind, bytes));
    return blocks_.back();
  }
  ~BlockPool() {
    cudaDeviceSynchronize();
    for (Block& b : blocks_) release(b);
  }

 private:
  std::vector<Block> blocks_;
};
