#pragma once
// Small RAII helpers shared by the embedding service.
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

// Host-side buffers that the DMA engine fills: portable across devices and
// write-combined "to keep the PCIe transfers fast".
#define EMB_STAGING_FLAGS (cudaHostAllocPortable | cudaHostAllocWriteCombined)

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&ptr_, n_ * sizeof(T))); }
  ~DeviceArray() { cudaFree(ptr_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return ptr_; }
  size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

template <typename T>
class PinnedArray {
 public:
  explicit PinnedArray(size_t n) : n_(n) { CUDA_CHECK(cudaMallocHost(&ptr_, n_ * sizeof(T))); }
  ~PinnedArray() { cudaFreeHost(ptr_); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  T* get() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

template <typename T>
class HostStaging {
 public:
  explicit HostStaging(size_t n) : n_(n) {
    CUDA_CHECK(cudaHostAlloc(&ptr_, n_ * sizeof(T), EMB_STAGING_FLAGS));
  }
  ~HostStaging() { cudaFreeHost(ptr_); }
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;
  T* get() const { return ptr_; }
  size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};
