// case: spectrum analyzer copies the power spectrum back with cudaMemcpyAsync into a std::unique_ptr<float[]> (pageable) and scans it for the peak with no sync: slow (pageable async copy), but not stale, since a device-to-pageable async copy returns only once it has completed
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "spectrum: %s\n", cudaGetErrorString(e_));           \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void synth_chirp(float* x, int n, float f0, float f1, int frame) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float t = float(i) / n;
  float f = f0 + (f1 - f0) * (0.01f * frame);
  x[i] = __sinf(6.2831853f * f * t * (1.f + 0.5f * t));
}

// Naive DFT power spectrum: P[k] = |sum_n x[n] e^{-2 pi i k n / N}|^2
__global__ void power_spectrum(const float* __restrict__ x, int n, float* __restrict__ P, int nbins) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nbins) return;
  float re = 0.f, im = 0.f;
  for (int j = 0; j < n; ++j) {
    float s, c;
    __sincosf(-6.2831853f * k * j / n, &s, &c);
    re += x[j] * c;
    im += x[j] * s;
  }
  P[k] = re * re + im * im;
}

class SpectrumAnalyzer {
 public:
  SpectrumAnalyzer(int window, int nbins) : window_(window), nbins_(nbins), h_power_(new float[nbins]) {
    CUDA_CHECK(cudaStreamCreate(&stream_));
    CUDA_CHECK(cudaMalloc(&d_signal_, window_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_power_, nbins_ * sizeof(float)));
  }

  ~SpectrumAnalyzer() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_power_);
    cudaFree(d_signal_);
    cudaStreamDestroy(stream_);
  }

  int peak_bin(int frame) {
    synth_chirp<<<(window_ + 255) / 256, 256, 0, stream_>>>(d_signal_, window_, 40.f, 400.f, frame);
    power_spectrum<<<(nbins_ + 127) / 128, 128, 0, stream_>>>(d_signal_, window_, d_power_, nbins_);
    CUDA_CHECK(cudaMemcpyAsync(h_power_.get(), d_power_, nbins_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));  // EXPECT: pageable_async_copy
    int best = 0;
    for (int k = 1; k < nbins_; ++k)
      if (h_power_[k] > h_power_[best]) best = k;
    return best;
  }

 private:
  int window_;
  int nbins_;
  std::unique_ptr<float[]> h_power_;
  cudaStream_t stream_ = nullptr;
  float* d_signal_ = nullptr;
  float* d_power_ = nullptr;
};

int main(int argc, char** argv) {
  const int window = argc > 1 ? std::atoi(argv[1]) : 1 << 17;
  SpectrumAnalyzer analyzer(window, window / 2);
  for (int frame = 0; frame < 50; ++frame)
    std::printf("frame %2d peak bin %d\n", frame, analyzer.peak_bin(frame));
  return 0;
}
