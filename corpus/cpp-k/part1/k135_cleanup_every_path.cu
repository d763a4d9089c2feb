// case: Two helpers that return cudaError_t: one frees its buffers on every error path through a single goto cleanup label (its optional mask is allocated and initialized under the same condition, and the kernel tests it for null), the other holds its buffers in std::unique_ptr with a cudaFree deleter; nothing leaks and nothing is used unallocated: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#define CHECK_GOTO(call)                                                       \
  do {                                                                         \
    err = (call);                                                              \
    if (err != cudaSuccess) goto cleanup;                                      \
  } while (0)

struct Config {
  bool use_mask;
  float gain;
};

__global__ void masked_gain(const float* __restrict__ in, const uint8_t* __restrict__ mask,
                            float gain, float* __restrict__ out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  const bool on = mask == nullptr || mask[i] != 0;
  out[i] = on ? in[i] * gain : in[i];
}

__global__ void sum_kernel(const float* __restrict__ v, size_t n, float* __restrict__ acc) {
  float s = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    s += v[i];
  atomicAdd(acc, s);
}

cudaError_t apply_gain(const Config& cfg, const std::vector<float>& in, std::vector<float>& out) {
  float* d_in = nullptr;
  float* d_out = nullptr;
  uint8_t* d_mask = nullptr;
  cudaError_t err = cudaSuccess;
  const size_t n = in.size();
  const size_t bytes = n * sizeof(float);
  const unsigned grid = static_cast<unsigned>((n + 255) / 256);
  out.resize(n);

  CHECK_GOTO(cudaMalloc(&d_in, bytes));
  CHECK_GOTO(cudaMalloc(&d_out, bytes));
  if (cfg.use_mask) {
    CHECK_GOTO(cudaMalloc(&d_mask, n));
    CHECK_GOTO(cudaMemset(d_mask, 0, n));
    CHECK_GOTO(cudaMemset(d_mask, 1, n / 2));  // gain applies to the first half only
  }
  CHECK_GOTO(cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice));
  masked_gain<<<grid, 256>>>(d_in, d_mask, cfg.gain, d_out, n);
  CHECK_GOTO(cudaGetLastError());
  CHECK_GOTO(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost));

cleanup:
  cudaFree(d_mask);
  cudaFree(d_out);
  cudaFree(d_in);
  return err;
}

struct CudaFreeDeleter {
  void operator()(void* p) const { cudaFree(p); }
};
template <typename T>
using device_unique = std::unique_ptr<T, CudaFreeDeleter>;

template <typename T>
device_unique<T> make_device(size_t count) {
  T* p = nullptr;
  if (cudaMalloc(&p, count * sizeof(T)) != cudaSuccess) return device_unique<T>();
  return device_unique<T>(p);
}

cudaError_t device_sum(const std::vector<float>& v, double* result) {
  auto d_v = make_device<float>(v.size());
  auto d_acc = make_device<float>(1);
  if (!d_v || !d_acc) return cudaErrorMemoryAllocation;
  cudaError_t err = cudaMemcpy(d_v.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice);
  if (err != cudaSuccess) return err;
  err = cudaMemset(d_acc.get(), 0, sizeof(float));
  if (err != cudaSuccess) return err;
  sum_kernel<<<128, 256>>>(d_v.get(), v.size(), d_acc.get());
  float acc = 0.f;
  err = cudaMemcpy(&acc, d_acc.get(), sizeof(float), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) return err;
  *result = acc;
  return cudaSuccess;
}

int main(int argc, char**) {
  std::vector<float> signal(1 << 22);
  for (size_t i = 0; i < signal.size(); ++i) signal[i] = float(i % 100) * 0.01f;

  const Config cfg{argc > 1, 2.f};
  std::vector<float> amplified;
  cudaError_t err = apply_gain(cfg, signal, amplified);
  double total = 0.0;
  if (err == cudaSuccess) err = device_sum(amplified, &total);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  std::printf("mask %s, sum after gain %.2f\n", cfg.use_mask ? "on" : "off", total);
  return 0;
}
