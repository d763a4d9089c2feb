#pragma once
// Host<->device transfer helpers shared by the inference tools.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t code_ = (call);                                             \
    if (code_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                   cudaGetErrorString(code_));                              \
      std::exit(EXIT_FAILURE);                                              \
    }                                                                       \
  } while (0)

template <typename T>
void upload(T* device, const std::vector<T>& host) {
  CUDA_CHECK(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// Enqueues the copy of `count` elements into `host` on `stream`.
template <typename T>
void download_async(std::vector<T>& host, const T* device, size_t count, cudaStream_t stream) {
  host.resize(count);
  CUDA_CHECK(cudaMemcpyAsync(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy
}
