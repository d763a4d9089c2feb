// case: Two RAII templates wrap device and pinned host arrays; PinnedArray's destructor was copied from DeviceArray and releases the cudaMallocHost memory with cudaFree instead of cudaFreeHost.
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_TRY(call)                                                         \
  do {                                                                         \
    const cudaError_t rc = (call);                                             \
    if (rc != cudaSuccess) {                                                   \
      std::fprintf(stderr, "[cuda] %s -> %s\n", #call, cudaGetErrorName(rc));  \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) : n_(n) { CUDA_TRY(cudaMalloc(&ptr_, n_ * sizeof(T))); }
  ~DeviceArray() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(o.n_) {}
  T* get() const { return ptr_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

template <typename T>
class PinnedArray {
 public:
  explicit PinnedArray(size_t n) : n_(n) { CUDA_TRY(cudaMallocHost(&ptr_, n_ * sizeof(T))); }
  ~PinnedArray() {
    if (ptr_) cudaFree(ptr_);  // EXPECT: mismatched_free
  }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  T* data() { return ptr_; }
  T& operator[](size_t i) { return ptr_[i]; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

__global__ void rotate_points(const float2* __restrict__ in, float2* __restrict__ out,
                              size_t n, float c, float s) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 p = in[i];
  out[i] = make_float2(c * p.x - s * p.y, s * p.x + c * p.y);
}

int main() {
  const size_t n = 1 << 21;
  const float angle = 0.5f;

  cudaStream_t stream;
  CUDA_TRY(cudaStreamCreate(&stream));
  {
    PinnedArray<float2> staging(n);  // used for the upload and then reused for the result
    DeviceArray<float2> d_in(n), d_out(n);

    for (size_t i = 0; i < n; ++i)
      staging[i] = make_float2(static_cast<float>(i % 4096), static_cast<float>(i / 4096));

    CUDA_TRY(cudaMemcpyAsync(d_in.get(), staging.data(), staging.bytes(),
                             cudaMemcpyHostToDevice, stream));
    const int block = 256;
    rotate_points<<<static_cast<unsigned>((n + block - 1) / block), block, 0, stream>>>(
        d_in.get(), d_out.get(), n, std::cos(angle), std::sin(angle));
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpyAsync(staging.data(), d_out.get(), d_out.bytes(),
                             cudaMemcpyDeviceToHost, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));

    float max_r2 = 0.f;
    for (size_t i = 0; i < n; ++i)
      max_r2 = std::max(max_r2, staging[i].x * staging[i].x + staging[i].y * staging[i].y);
    std::printf("max radius^2 after rotation: %.1f\n", max_r2);
  }
  CUDA_TRY(cudaStreamDestroy(stream));
  return 0;
}
