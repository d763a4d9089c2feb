// Offline vibration analysis: for each recorded block, compute the magnitude
// spectrum with a real-to-complex FFT and report the dominant frequency. The
// device input buffer is released as soon as the transform has been issued.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
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

// Returns |X[k]| for k = 0 .. kBins-1.
static std::vector<float> magnitude_spectrum(cufftHandle plan, const std::vector<float>& block) {
  cufftReal* d_in = nullptr;
  cufftComplex* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, sizeof(cufftReal) * kBlock));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(cufftComplex) * kBins));

  CUDA_CHECK(cudaMemcpy(d_in, block.data(), sizeof(cufftReal) * kBlock, cudaMemcpyHostToDevice));
  CUFFT_CHECK(cufftExecR2C(plan, d_in, d_out));
  CUDA_CHECK(cudaFree(d_in));  // EXPECT: relies_on_implicit_sync

  std::vector<cufftComplex> spec(kBins);
  CUDA_CHECK(cudaMemcpy(spec.data(), d_out, sizeof(cufftComplex) * kBins, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_out));

  std::vector<float> mag(kBins);
  for (int k = 0; k < kBins; ++k) mag[k] = std::sqrt(spec[k].x * spec[k].x + spec[k].y * spec[k].y);
  return mag;
}

int main() {
  cufftHandle plan;
  CUFFT_CHECK(cufftPlan1d(&plan, kBlock, CUFFT_R2C, 1));

  std::vector<float> block(kBlock);
  for (int b = 0; b < 8; ++b) {
    const double f0 = 120.0 * (b + 1);
    for (int i = 0; i < kBlock; ++i)
      block[i] = static_cast<float>(std::sin(2.0 * 3.14159265358979 * f0 * i / kSampleRate) +
                                    0.1 * std::sin(0.37 * i * (b + 3)));
    std::vector<float> mag = magnitude_spectrum(plan, block);
    int peak = 1;
    for (int k = 2; k < kBins; ++k)
      if (mag[k] > mag[peak]) peak = k;
    std::printf("block %d: dominant %.1f Hz\n", b, peak * kSampleRate / kBlock);
  }

  CUFFT_CHECK(cufftDestroy(plan));
  return 0;
}
