#pragma once
// A fully connected layer whose parameters live in device memory for the layer's lifetime.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                         \
  do {                                                                           \
    cudaError_t e_ = (expr);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "[cuda] %s failed at %s:%d: %s\n", #expr, __FILE__,   \
                   __LINE__, cudaGetErrorString(e_));                            \
      std::abort();                                                              \
    }                                                                            \
  } while (0)

// y[b, o] = bias[o] + sum_i W[o, i] * x[b, i]
template <typename T>
__global__ void dense_forward(const T* __restrict__ W, const T* __restrict__ bias,
                              const T* __restrict__ x, T* __restrict__ y,
                              int in_features, int out_features, int batch) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (o >= out_features || b >= batch) return;
  T acc = bias[o];
  const T* w_row = W + static_cast<size_t>(o) * in_features;
  const T* x_row = x + static_cast<size_t>(b) * in_features;
  for (int i = 0; i < in_features; ++i) acc += w_row[i] * x_row[i];
  y[static_cast<size_t>(b) * out_features + o] = acc;
}

template <typename T>
class Dense {
 public:
  Dense(int in_features, int out_features, cudaStream_t stream)
      : in_(in_features), out_(out_features), stream_(stream) {
    CUDA_CHECK(cudaMalloc(&W_, weight_bytes()));
    CUDA_CHECK(cudaMalloc(&b_, out_ * sizeof(T)));
  }
  ~Dense() {
    cudaFree(W_);
    cudaFree(b_);
  }
  Dense(const Dense&) = delete;
  Dense& operator=(const Dense&) = delete;

  void load(const std::vector<T>& W, const std::vector<T>& b) {
    CUDA_CHECK(cudaMemcpy(W_, W.data(), weight_bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b_, b.data(), out_ * sizeof(T), cudaMemcpyHostToDevice));
  }

  void forward(const T* d_x, T* d_y, int batch) const {
    const dim3 block(128);
    const dim3 grid((out_ + block.x - 1) / block.x, batch);
    dense_forward<T><<<grid, block, 0, stream_>>>(W_, b_, d_x, d_y, in_, out_, batch);
    CUDA_CHECK(cudaGetLastError());
  }

  int in_features() const { return in_; }
  int out_features() const { return out_; }

 private:
  size_t weight_bytes() const { return static_cast<size_t>(in_) * out_ * sizeof(T); }

  int in_;
  int out_;
  cudaStream_t stream_;
  T* W_ = nullptr;
  T* b_ = nullptr;
};
