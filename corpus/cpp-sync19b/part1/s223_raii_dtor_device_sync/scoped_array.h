// Owning device array of a physics code. Its destructor and reset() drain the device before
// releasing memory, so temporaries can go out of scope right after a launch.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <utility>

template <typename T>
class ScopedDeviceArray {
 public:
  ScopedDeviceArray() = default;
  explicit ScopedDeviceArray(size_t n) : n_(n) { cudaMalloc(&p_, n * sizeof(T)); }
  ~ScopedDeviceArray() { reset(); }

  ScopedDeviceArray(ScopedDeviceArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  ScopedDeviceArray(const ScopedDeviceArray&) = delete;
  ScopedDeviceArray& operator=(const ScopedDeviceArray&) = delete;

  void reset() {
    if (p_ != nullptr) {
      cudaDeviceSynchronize();  // nothing may still use p_
      cudaFree(p_);
      p_ = nullptr;
      n_ = 0;
    }
  }

  T* get() const { return p_; }
  size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};
