// case: A FIR filter class stages its input and output in std::vector members and moves them with cudaMemcpyAsync on its own stream; both copies come from pageable memory (runtime-sized, megabytes), so they are staged and serialized; the stream is synchronized before the host reads, so only the performance lint applies.
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

static void throw_on_error(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

constexpr int kMaxTaps = 64;
__constant__ float c_taps[kMaxTaps];

__global__ void fir_kernel(const float* __restrict__ x, float* __restrict__ y, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int k = 0; k < taps; ++k) {
    int j = i - k;
    if (j >= 0) acc += c_taps[k] * x[j];
  }
  y[i] = acc;
}

class FirFilter {
 public:
  FirFilter(const std::vector<float>& taps, size_t max_samples)
      : taps_(static_cast<int>(taps.size())), capacity_(max_samples) {
    if (taps_ > kMaxTaps) throw std::invalid_argument("too many taps");
    throw_on_error(cudaMemcpyToSymbol(c_taps, taps.data(), taps.size() * sizeof(float)),
                   "upload taps");
    throw_on_error(cudaStreamCreate(&stream_), "stream");
    throw_on_error(cudaMalloc(&d_x_, capacity_ * sizeof(float)), "alloc x");
    throw_on_error(cudaMalloc(&d_y_, capacity_ * sizeof(float)), "alloc y");
    host_in_.resize(capacity_);
    host_out_.resize(capacity_);
  }

  ~FirFilter() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_y_);
    cudaFree(d_x_);
    cudaStreamDestroy(stream_);
  }

  std::vector<float>& input() { return host_in_; }
  const std::vector<float>& output() const { return host_out_; }

  void process(size_t n) {
    if (n > capacity_) throw std::out_of_range("block too large");
    const size_t bytes = n * sizeof(float);
    throw_on_error(cudaMemcpyAsync(d_x_, host_in_.data(), bytes, cudaMemcpyHostToDevice,  // EXPECT: pageable_async_copy
                                   stream_), "h2d");
    const int block = 256;
    fir_kernel<<<static_cast<int>((n + block - 1) / block), block, 0, stream_>>>(
        d_x_, d_y_, static_cast<int>(n), taps_);
    throw_on_error(cudaGetLastError(), "launch");
    throw_on_error(cudaMemcpyAsync(host_out_.data(), d_y_, bytes, cudaMemcpyDeviceToHost,  // EXPECT: pageable_async_copy
                                   stream_), "d2h");
    throw_on_error(cudaStreamSynchronize(stream_), "sync");
  }

 private:
  int taps_;
  size_t capacity_;
  cudaStream_t stream_ = nullptr;
  float* d_x_ = nullptr;
  float* d_y_ = nullptr;
  std::vector<float> host_in_;
  std::vector<float> host_out_;
};

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : (size_t(1) << 22);
  std::vector<float> taps(31);
  for (int k = 0; k < 31; ++k) {
    float t = k - 15.f;
    taps[k] = t == 0.f ? 0.25f : std::sin(0.25f * 3.14159265f * t) / (3.14159265f * t);
  }

  try {
    FirFilter fir(taps, n);
    auto& in = fir.input();
    for (size_t i = 0; i < n; ++i) in[i] = std::sin(0.001f * i) + 0.2f * std::sin(0.9f * i);
    fir.process(n);
    double energy = 0.0;
    for (float v : fir.output()) energy += double(v) * v;
    std::printf("filtered %zu samples, energy %.3f\n", n, energy);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "error: %s\n", ex.what());
    return 1;
  }
  return 0;
}
