#pragma once
// Move-only owner of a typed device allocation.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

inline void cuda_check(cudaError_t err, const char* file, int line) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s:%d: %s\n", file, line, cudaGetErrorString(err));
    std::exit(EXIT_FAILURE);
  }
}
#define CUDA_CHECK(x) cuda_check((x), __FILE__, __LINE__)

template <typename T>
class CudaBuffer {
 public:
  explicit CudaBuffer(size_t count) : count_(count) {
    CUDA_CHECK(cudaMalloc(&ptr_, count_ * sizeof(T)));
  }
  ~CudaBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  CudaBuffer(CudaBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  CudaBuffer& operator=(CudaBuffer&&) = delete;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  T* get() { return ptr_; }
  const T* get() const { return ptr_; }
  size_t size() const { return count_; }

  void copy_from(const std::vector<T>& host) {
    CUDA_CHECK(cudaMemcpy(ptr_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  void copy_to(std::vector<T>& host) const {
    host.resize(count_);
    CUDA_CHECK(cudaMemcpy(host.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
  }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};
