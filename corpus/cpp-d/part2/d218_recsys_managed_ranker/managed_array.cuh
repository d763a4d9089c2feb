#pragma once
// RAII owner of a unified-memory array.
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

template <typename T>
class ManagedArray {
 public:
  ManagedArray() = default;
  explicit ManagedArray(size_t n, unsigned flags = cudaMemAttachGlobal) : n_(n) {
    CUDA_CHECK(cudaMallocManaged(&ptr_, n_ * sizeof(T), flags));
  }
  ~ManagedArray() {
    if (ptr_) cudaFree(ptr_);
  }
  ManagedArray(ManagedArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  ManagedArray& operator=(ManagedArray&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    return *this;
  }
  ManagedArray(const ManagedArray&) = delete;
  ManagedArray& operator=(const ManagedArray&) = delete;

  T* data() const { return ptr_; }
  size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};
