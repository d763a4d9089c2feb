// case: A layer-norm forward pass carves all its tensors out of one cudaMalloc'd arena by aligned offsets, copies exactly each tensor's size into and out of its slice, logs the arena base address, and frees the arena once in the destructor: correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err = (call);                                                  \
    if (err != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      std::exit(EXIT_FAILURE);                                                 \
    }                                                                          \
  } while (0)

class DeviceArena {
 public:
  explicit DeviceArena(size_t bytes) : capacity_(bytes) {
    CHECK(cudaMalloc(&base_, capacity_));
    std::printf("arena: %zu bytes at %p\n", capacity_, base_);
  }
  ~DeviceArena() { cudaFree(base_); }
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  template <typename T>
  T* take(size_t count) {
    const size_t align = 256;
    size_t off = (used_ + align - 1) / align * align;
    if (off + count * sizeof(T) > capacity_) {
      std::fprintf(stderr, "arena exhausted\n");
      std::exit(EXIT_FAILURE);
    }
    used_ = off + count * sizeof(T);
    return reinterpret_cast<T*>(static_cast<char*>(base_) + off);
  }

 private:
  void* base_ = nullptr;
  size_t capacity_;
  size_t used_ = 0;
};

__global__ void layer_norm(const float* __restrict__ x, const float* __restrict__ gamma,
                           const float* __restrict__ beta, float* __restrict__ y,
                           float2* __restrict__ stats, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + size_t(r) * cols;
  float mean = 0.f, var = 0.f;
  for (int c = 0; c < cols; ++c) mean += xr[c];
  mean /= cols;
  for (int c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
  float inv = rsqrtf(var / cols + 1e-5f);
  for (int c = 0; c < cols; ++c) y[size_t(r) * cols + c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
  stats[r] = make_float2(mean, inv);
}

int main() {
  const int rows = 4096, cols = 1024;
  const size_t act = size_t(rows) * cols;

  std::vector<float> h_x(act), h_gamma(cols, 1.f), h_beta(cols, 0.f), h_y(act);
  std::vector<float2> h_stats(rows);
  for (size_t i = 0; i < act; ++i) h_x[i] = std::sin(0.01f * float(i % 5003)) * (1 + i % 3);

  DeviceArena arena(64u << 20);
  float* d_x = arena.take<float>(act);
  float* d_gamma = arena.take<float>(cols);
  float* d_beta = arena.take<float>(cols);
  float* d_y = arena.take<float>(act);
  float2* d_stats = arena.take<float2>(rows);

  CHECK(cudaMemcpy(d_x, h_x.data(), act * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_gamma, h_gamma.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_beta, h_beta.data(), cols * sizeof(float), cudaMemcpyHostToDevice));

  layer_norm<<<(rows + 127) / 128, 128>>>(d_x, d_gamma, d_beta, d_y, d_stats, rows, cols);
  CHECK(cudaGetLastError());

  CHECK(cudaMemcpy(h_y.data(), d_y, act * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_stats.data(), d_stats, rows * sizeof(float2), cudaMemcpyDeviceToHost));

  double max_abs_mean = 0.0;
  for (int r = 0; r < rows; ++r) {
    double m = 0.0;
    for (int c = 0; c < cols; ++c) m += h_y[size_t(r) * cols + c];
    max_abs_mean = std::fmax(max_abs_mean, std::fabs(m / cols));
  }
  std::printf("max |row mean| after norm %.2e, row 0 stats (%.4f, %.4f)\n", max_abs_mean,
              h_stats[0].x, h_stats[0].y);
  return 0;
}
