// case: gradient accumulator for micro-batched training; reset() clears the cudaMalloc'd accumulator with host std::memset, and norm() returns the pinned result of an async readback without synchronizing the stream
// expect: host_deref_device_ptr=1, missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "accum: %s at %s:%d\n", cudaGetErrorString(e_),      \
                   __FILE__, __LINE__);                                         \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void accumulate(float* __restrict__ acc, const float* __restrict__ grad, size_t n, float scale) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) acc[i] += scale * grad[i];
}

__global__ void sq_norm(const float* __restrict__ x, size_t n, float* out) {
  __shared__ float part[256];
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] * x[i] : 0.f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

template <typename T>
class GradAccumulator {
 public:
  GradAccumulator(size_t n, cudaStream_t stream) : n_(n), bytes_(n * sizeof(T)), stream_(stream) {
    CUDA_CHECK(cudaMalloc(&d_accum_, bytes_));
    CUDA_CHECK(cudaMalloc(&d_norm_, sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_norm_, sizeof(float)));
  }

  ~GradAccumulator() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(h_norm_);
    cudaFree(d_norm_);
    cudaFree(d_accum_);
  }

  void reset() {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::memset(this->d_accum_, 0, bytes_);  // EXPECT: host_deref_device_ptr
    micro_batches_ = 0;
  }

  void add(const T* d_grad) {
    accumulate<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_accum_, d_grad, n_, 1.f);
    ++micro_batches_;
  }

  float norm() {
    CUDA_CHECK(cudaMemsetAsync(d_norm_, 0, sizeof(float), stream_));
    sq_norm<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_accum_, n_, d_norm_);
    CUDA_CHECK(cudaMemcpyAsync(h_norm_, d_norm_, sizeof(float), cudaMemcpyDeviceToHost, stream_));
    return std::sqrt(*h_norm_) / (micro_batches_ ? micro_batches_ : 1);  // EXPECT: missing_sync
  }

  T* data() { return d_accum_; }

 private:
  size_t n_;
  size_t bytes_;
  cudaStream_t stream_;
  T* d_accum_ = nullptr;
  float* d_norm_ = nullptr;
  float* h_norm_ = nullptr;
  int micro_batches_ = 0;
};

int main() {
  const size_t params = size_t(25) << 20;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* d_grad = nullptr;
  CUDA_CHECK(cudaMalloc(&d_grad, params * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_grad, 0, params * sizeof(float), s));

  {
    GradAccumulator<float> acc(params, s);
    for (int step = 0; step < 10; ++step) {
      acc.reset();
      for (int mb = 0; mb < 4; ++mb) acc.add(d_grad);
      std::printf("step %d grad norm %f\n", step, acc.norm());
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  cudaFree(d_grad);
  cudaStreamDestroy(s);
  return 0;
}
