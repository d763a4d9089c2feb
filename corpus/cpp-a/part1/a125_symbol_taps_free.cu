// case: FIR filter bank keeps the address of a __device__ coefficient array (cudaGetSymbolAddress) next to its cudaMalloc'd buffers, and the destructor cudaFree's all three, including the module global
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "fir: %s\n", cudaGetErrorString(e_));                \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kMaxTaps = 128;
__device__ float g_taps[kMaxTaps];

__global__ void fir_apply(const float* __restrict__ x, float* __restrict__ y, const float* __restrict__ taps,
                          int ntaps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int t = 0; t < ntaps && t <= i; ++t) acc += taps[t] * x[i - t];
  y[i] = acc;
}

class FirFilter {
 public:
  FirFilter(const std::vector<float>& taps, int max_block) : ntaps_(static_cast<int>(taps.size())), max_block_(max_block) {
    if (ntaps_ > kMaxTaps) ntaps_ = kMaxTaps;
    CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&d_taps_), g_taps));
    CUDA_CHECK(cudaMemcpyToSymbol(g_taps, taps.data(), ntaps_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x_, max_block_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y_, max_block_ * sizeof(float)));
  }

  ~FirFilter() {
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaFree(d_y_);
    cudaFree(d_x_);
    cudaFree(d_taps_);  // EXPECT: mismatched_free
  }

  void filter(const float* h_x, float* h_y, int n) {
    CUDA_CHECK(cudaMemcpy(d_x_, h_x, n * sizeof(float), cudaMemcpyHostToDevice));
    fir_apply<<<(n + 255) / 256, 256>>>(d_x_, d_y_, d_taps_, ntaps_, n);
    CUDA_CHECK(cudaMemcpy(h_y, d_y_, n * sizeof(float), cudaMemcpyDeviceToHost));
  }

 private:
  int ntaps_;
  int max_block_;
  float* d_taps_ = nullptr;
  float* d_x_ = nullptr;
  float* d_y_ = nullptr;
};

int main() {
  std::vector<float> taps(64);
  for (int t = 0; t < 64; ++t) taps[t] = 0.54f - 0.46f * std::cos(6.2831853f * t / 63.f);
  const int n = 1 << 20;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = (i % 100) < 50 ? 1.f : -1.f;
  {
    FirFilter fir(taps, n);
    fir.filter(x.data(), y.data(), n);
  }
  std::printf("y[1000] = %f\n", y[1000]);
  return 0;
}
