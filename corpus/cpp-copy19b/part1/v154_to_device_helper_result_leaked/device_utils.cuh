#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      std::exit(EXIT_FAILURE);                                             \
    }                                                                      \
  } while (0)

template <typename T>
T *to_device(const std::vector<T> &host) {
  T *dev = nullptr;
  CUDA_CHECK(cudaMalloc(&dev, host.size() * sizeof(T))); // EXPECT: device_memory_leak
  CUDA_CHECK(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return dev;
}

template <typename T>
T *device_zeros(size_t count) {
  T *dev = nullptr;
  CUDA_CHECK(cudaMalloc(&dev, count * sizeof(T)));
  CUDA_CHECK(cudaMemset(dev, 0, count * sizeof(T)));
  return dev;
}

template <typename T>
std::vector<T> to_host(const T *dev, size_t count) {
  std::vector<T> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), dev, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}
