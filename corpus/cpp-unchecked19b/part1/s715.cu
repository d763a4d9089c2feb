// case: RAII wrappers discard the statuses of cudaFree, cudaFreeHost and cudaEventDestroy in their noexcept destructors on purpose, with (void) and static_cast<void>.
// expect: none
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuda_runtime.h>

inline void throw_on_error(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) : n_(n) { throw_on_error(cudaMalloc(&p_, n * sizeof(T)), "cudaMalloc"); }
  ~DeviceArray() noexcept { (void)cudaFree(p_); }  // destructors must not throw
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  size_t n_;
};

template <typename T>
class PinnedArray {
 public:
  explicit PinnedArray(size_t n) : n_(n) { throw_on_error(cudaMallocHost(&p_, n * sizeof(T)), "cudaMallocHost"); }
  ~PinnedArray() noexcept { static_cast<void>(cudaFreeHost(p_)); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  T& operator[](size_t i) { return p_[i]; }
  T* data() const { return p_; }

 private:
  T* p_ = nullptr;
  size_t n_;
};

class Event {
 public:
  Event() { throw_on_error(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming), "cudaEventCreate"); }
  ~Event() noexcept { (void)cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

__global__ void square(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= v[i];
}

int main() try {
  const int n = 100000;
  PinnedArray<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = i % 1000;
  DeviceArray<int> dev(n);
  Event done;

  throw_on_error(cudaMemcpyAsync(dev.data(), host.data(), n * sizeof(int), cudaMemcpyHostToDevice), "upload");
  square<<<(n + 127) / 128, 128>>>(dev.data(), n);
  throw_on_error(cudaGetLastError(), "square launch");
  throw_on_error(cudaMemcpyAsync(host.data(), dev.data(), n * sizeof(int), cudaMemcpyDeviceToHost), "download");
  throw_on_error(cudaEventRecord(done.get()), "cudaEventRecord");
  throw_on_error(cudaEventSynchronize(done.get()), "cudaEventSynchronize");

  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += host[i];
  std::printf("sum of squares: %lld\n", sum);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
