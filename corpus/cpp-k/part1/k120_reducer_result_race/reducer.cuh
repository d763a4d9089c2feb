#pragma once
// Two-pass block reduction with a pinned result slot, enqueued on the caller's stream.
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

#ifndef CUDA_CHECK
#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e__ = (call);                                                  \
    if (e__ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(e__));      \
      std::exit(EXIT_FAILURE);                                                 \
    }                                                                          \
  } while (0)
#endif

struct SumOp {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOp {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

template <typename T, typename Op, int kThreads>
__global__ void reduce_blocks(const T* __restrict__ in, size_t n, T identity, T* __restrict__ out) {
  __shared__ T smem[kThreads];
  Op op;
  T acc = identity;
  for (size_t i = blockIdx.x * (size_t)kThreads + threadIdx.x; i < n; i += (size_t)gridDim.x * kThreads)
    acc = op(acc, in[i]);
  smem[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] = op(smem[threadIdx.x], smem[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = smem[0];
}

template <typename T, typename Op>
class DeviceReducer {
 public:
  static constexpr int kThreads = 256;

  DeviceReducer(int blocks, cudaStream_t stream) : blocks_(blocks), stream_(stream) {
    CUDA_CHECK(cudaMalloc(&d_partials_, blocks_ * sizeof(T)));
    CUDA_CHECK(cudaMalloc(&d_result_, sizeof(T)));
    CUDA_CHECK(cudaMallocHost(&h_result_, sizeof(T)));
  }
  ~DeviceReducer() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(h_result_);
    cudaFree(d_result_);
    cudaFree(d_partials_);
  }
  DeviceReducer(const DeviceReducer&) = delete;
  DeviceReducer& operator=(const DeviceReducer&) = delete;

  // Enqueues the reduction and the copy of its result; returns immediately.
  void launch(const T* d_in, size_t n, T identity) {
    reduce_blocks<T, Op, kThreads><<<blocks_, kThreads, 0, stream_>>>(d_in, n, identity, d_partials_);
    reduce_blocks<T, Op, kThreads><<<1, kThreads, 0, stream_>>>(d_partials_, blocks_, identity, d_result_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_result_, d_result_, sizeof(T), cudaMemcpyDeviceToHost, stream_));
  }

  void wait() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  // The value of the last launch(); valid once wait() has returned.
  T result() const { return *h_result_; }  // EXPECT: missing_sync

 private:
  int blocks_;
  cudaStream_t stream_;
  T* d_partials_ = nullptr;
  T* d_result_ = nullptr;
  T* h_result_ = nullptr;
};
