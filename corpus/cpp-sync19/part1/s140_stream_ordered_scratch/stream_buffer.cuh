#pragma once
// Stream-ordered scratch allocation: allocated with cudaMallocAsync and released with
// cudaFreeAsync on the stream it was made for, so the release is ordered after all work
// queued on that stream before it.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(EXIT_FAILURE);                                                \
    }                                                                         \
  } while (0)

template <typename T>
class StreamBuffer {
 public:
  StreamBuffer(size_t count, cudaStream_t stream) : count_(count), stream_(stream) {
    CUDA_CHECK(cudaMallocAsync(&ptr_, count_ * sizeof(T), stream_));
  }
  ~StreamBuffer() { cudaFreeAsync(ptr_, stream_); }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;

  T* get() const { return ptr_; }
  size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  size_t count_;
  cudaStream_t stream_;
};
