#pragma once
// Move-only owner of device memory: frees what it holds with cudaFree.
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

template <typename T>
class DeviceOwned {
 public:
  DeviceOwned() = default;
  static DeviceOwned allocate(size_t n) {
    T* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    return DeviceOwned(p, n);
  }
  // Takes ownership of device memory obtained elsewhere.
  static DeviceOwned adopt(T* p, size_t n) { return DeviceOwned(p, n); }

  DeviceOwned(DeviceOwned&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceOwned& operator=(DeviceOwned&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  ~DeviceOwned() { reset(); }

  void reset() {
    if (ptr_ != nullptr) {
      cudaFree(ptr_);  // EXPECT: mismatched_free
      ptr_ = nullptr;
      n_ = 0;
    }
  }
  T* get() const { return ptr_; }
  size_t size() const { return n_; }

 private:
  DeviceOwned(T* p, size_t n) : ptr_(p), n_(n) {}
  T* ptr_ = nullptr;
  size_t n_ = 0;
};
