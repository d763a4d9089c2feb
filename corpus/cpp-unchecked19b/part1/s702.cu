// case: RAII wrappers for a device buffer and a stream drop the statuses of cudaFree and cudaStreamDestroy in their destructors, while the main path checks every call.
// expect: unchecked_cuda_result=2
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t status_ = (call);                                          \
    if (status_ != cudaSuccess) {                                          \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,   \
                   #call, cudaGetErrorString(status_));                    \
      std::abort();                                                        \
    }                                                                      \
  } while (0)

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    CUDA_CHECK(cudaMalloc(&ptr_, count_ * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);  // EXPECT: unchecked_cuda_result
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }  // EXPECT: unchecked_cuda_result
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

__global__ void relu_inplace(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && data[i] < 0.0f) data[i] = 0.0f;
}

int main() {
  const int n = 1 << 18;
  float* h_data = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_data, n * sizeof(float)));
  for (int i = 0; i < n; ++i) h_data[i] = static_cast<float>(i % 7) - 3.0f;

  {
    Stream stream;
    DeviceBuffer<float> d_data(n);
    CUDA_CHECK(cudaMemcpyAsync(d_data.get(), h_data, d_data.bytes(),
                               cudaMemcpyHostToDevice, stream.get()));
    relu_inplace<<<(n + 255) / 256, 256, 0, stream.get()>>>(d_data.get(), n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_data, d_data.get(), d_data.bytes(),
                               cudaMemcpyDeviceToHost, stream.get()));
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  }

  int negatives = 0;
  for (int i = 0; i < n; ++i) negatives += h_data[i] < 0.0f ? 1 : 0;
  std::printf("negatives after relu: %d\n", negatives);

  CUDA_CHECK(cudaFreeHost(h_data));
  return negatives == 0 ? 0 : 1;
}
