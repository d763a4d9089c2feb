// Offline vibration analysis: for each recorded block, compute the magnitude
// spectrum with a real-to-complex FFT and report the dominant frequency. The
// per-block device buffers come from the stream-ordered allocator and are
// released in stream order behind the work that uses them.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cufft.h>

#define CUDA_CHECK(x)                                                           \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d CUDA: %s\n", __FILE__, __LINE__,              \
                   cudaGetErrorString(e_));                                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

#define CUFFT_CHECK(x)                                                          \
  do {                                                                          \
    cufftResult r_ = (x);                                                       \
    if (r_ != CUFFT_SUCCESS) {                                                  \
      std::fprintf(stderr, "%s:%d cuFFT error %d\n", __FILE__, __LINE__,        \
                   static_cast<int>(r_));                                       \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kBlock = 1 << 16;
constexpr int kBins = kBlock / 2 + 1;
constexpr double kSampleRate = 51200.0;

class SpectrumAnalyzer {
 public:
  SpectrumAnalyzer() {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUFFT_CHECK(cufftPlan1d(&plan_, kBlock, CUFFT_R2C, 1));
    CUFFT_CHECK(cufftSetStream(plan_, stream_));
    CUDA_CHECK(cudaMallocHost(&h_block_, sizeof(float) * kBlock));
    CUDA_CHECK(cudaMallocHost(&h_spec_, sizeof(cufftComplex) * kBins));
  }

  ~SpectrumAnalyzer() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(h_spec_);
    cudaFreeHost(h_block_);
    cufftDestroy(plan_);
    cudaStreamDestroy(stream_);
  }

  SpectrumAnalyzer(const SpectrumAnalyzer&) = delete;
  SpectrumAnalyzer& operator=(const SpectrumAnalyzer&) = delete;

  float* block() { return h_block_; }

  // Transforms the block in block(); returns the dominant frequency in Hz.
  double dominant_frequency() {
    cufftReal* d_in = nullptr;
    cufftComplex* d_out = nullptr;
    CUDA_CHECK(cudaMallocAsync(&d_in, sizeof(cufftReal) * kBlock, stream_));
    CUDA_CHECK(cudaMallocAsync(&d_out, sizeof(cufftComplex) * kBins, stream_));
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_block_, sizeof(cufftReal) * kBlock, cudaMemcpyHostToDevice,
                               stream_));
    CUFFT_CHECK(cufftExecR2C(plan_, d_in, d_out));
    // Freed behind the transform on the same stream: no host wait needed.
    CUDA_CHECK(cudaFreeAsync(d_in, stream_));
    CUDA_CHECK(cudaMemcpyAsync(h_spec_, d_out, sizeof(cufftComplex) * kBins,
                               cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaFreeAsync(d_out, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));

    int peak = 1;
    float best = 0.0f;
    for (int k = 1; k < kBins; ++k) {
      float m = h_spec_[k].x * h_spec_[k].x + h_spec_[k].y * h_spec_[k].y;
      if (m > best) {
        best = m;
        peak = k;
      }
    }
    return peak * kSampleRate / kBlock;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cufftHandle plan_ = 0;
  float* h_block_ = nullptr;
  cufftComplex* h_spec_ = nullptr;
};

int main() {
  SpectrumAnalyzer analyzer;
  for (int b = 0; b < 8; ++b) {
    const double f0 = 120.0 * (b + 1);
    float* x = analyzer.block();
    for (int i = 0; i < kBlock; ++i)
      x[i] = static_cast<float>(std::sin(2.0 * 3.14159265358979 * f0 * i / kSampleRate) +
                                0.1 * std::sin(0.37 * i * (b + 3)));
    std::printf("block %d: dominant %.1f Hz\n", b, analyzer.dominant_frequency());
  }
  return 0;
}
