// Overlap-save FIR filtering of a long signal with batched FFTs. The ingest
// side (upload + forward transform) and the output side (spectral multiply,
// inverse transform, download) are issued to two streams. A single batched
// C2C plan serves both sides: its stream is switched before each side runs.
#include <algorithm>
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

constexpr int kN = 4096;                // FFT size
constexpr int kTaps = 129;              // FIR length
constexpr int kHop = kN - (kTaps - 1);  // new samples per frame

__global__ void multiply_spectrum(const cufftComplex* spec, const cufftComplex* filt,
                                  cufftComplex* out, int n, int frames, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n * frames) return;
  cufftComplex a = spec[i];
  cufftComplex b = filt[i % n];
  out[i].x = (a.x * b.x - a.y * b.y) * scale;
  out[i].y = (a.x * b.y + a.y * b.x) * scale;
}

// Filters `signal` with `taps` and returns the filtered signal.
static std::vector<float> fast_convolve(const std::vector<float>& signal,
                                        const std::vector<float>& taps) {
  const int frames = static_cast<int>((signal.size() + kHop - 1) / kHop);
  const size_t frame_bytes = sizeof(cufftComplex) * kN;
  const size_t all_bytes = frame_bytes * frames;

  cudaStream_t ingest, output;
  CUDA_CHECK(cudaStreamCreateWithFlags(&ingest, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&output, cudaStreamNonBlocking));

  cufftHandle frames_plan, filter_plan;
  CUFFT_CHECK(cufftPlan1d(&frames_plan, kN, CUFFT_C2C, frames));
  CUFFT_CHECK(cufftPlan1d(&filter_plan, kN, CUFFT_C2C, 1));

  cufftComplex *h_filter = nullptr, *h_frames = nullptr, *h_out = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_filter, frame_bytes));
  CUDA_CHECK(cudaMallocHost(&h_frames, all_bytes));
  CUDA_CHECK(cudaMallocHost(&h_out, all_bytes));

  for (int i = 0; i < kN; ++i) {
    h_filter[i].x = i < kTaps ? taps[i] : 0.0f;
    h_filter[i].y = 0.0f;
  }
  // Frame f holds signal[f*kHop - (kTaps-1), f*kHop + kHop), zero outside.
  for (int f = 0; f < frames; ++f) {
    for (int i = 0; i < kN; ++i) {
      long src = static_cast<long>(f) * kHop - (kTaps - 1) + i;
      bool inside = src >= 0 && src < static_cast<long>(signal.size());
      h_frames[static_cast<size_t>(f) * kN + i].x = inside ? signal[src] : 0.0f;
      h_frames[static_cast<size_t>(f) * kN + i].y = 0.0f;
    }
  }

  cufftComplex *d_filter = nullptr, *d_frames = nullptr, *d_spec = nullptr, *d_prod = nullptr;
  CUDA_CHECK(cudaMalloc(&d_filter, frame_bytes));
  CUDA_CHECK(cudaMalloc(&d_frames, all_bytes));
  CUDA_CHECK(cudaMalloc(&d_spec, all_bytes));
  CUDA_CHECK(cudaMalloc(&d_prod, all_bytes));

  // Filter spectrum, prepared where it is consumed.
  CUFFT_CHECK(cufftSetStream(filter_plan, output));
  CUDA_CHECK(cudaMemcpyAsync(d_filter, h_filter, frame_bytes, cudaMemcpyHostToDevice, output));
  CUFFT_CHECK(cufftExecC2C(filter_plan, d_filter, d_filter, CUFFT_FORWARD));

  // Ingest side.
  CUFFT_CHECK(cufftSetStream(frames_plan, ingest));
  CUDA_CHECK(cudaMemcpyAsync(d_frames, h_frames, all_bytes, cudaMemcpyHostToDevice, ingest));
  CUFFT_CHECK(cufftExecC2C(frames_plan, d_frames, d_spec, CUFFT_FORWARD));

  // Output side: the same plan, moved to the output stream.
  CUFFT_CHECK(cufftSetStream(frames_plan, output));
  const int total = kN * frames;
  multiply_spectrum<<<(total + 255) / 256, 256, 0, output>>>(d_spec, d_filter, d_prod, kN, frames, 1.0f / kN);  // EXPECT: missing_sync
  CUDA_CHECK(cudaGetLastError());
  CUFFT_CHECK(cufftExecC2C(frames_plan, d_prod, d_prod, CUFFT_INVERSE));
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_prod, all_bytes, cudaMemcpyDeviceToHost, output));
  CUDA_CHECK(cudaStreamSynchronize(output));

  // Keep the last kHop samples of each frame (the first kTaps-1 are aliased).
  std::vector<float> filtered(signal.size());
  for (size_t k = 0; k < filtered.size(); ++k) {
    size_t f = k / kHop, i = k % kHop + (kTaps - 1);
    filtered[k] = h_out[f * kN + i].x;
  }

  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d_prod));
  CUDA_CHECK(cudaFree(d_spec));
  CUDA_CHECK(cudaFree(d_frames));
  CUDA_CHECK(cudaFree(d_filter));
  CUDA_CHECK(cudaFreeHost(h_out));
  CUDA_CHECK(cudaFreeHost(h_frames));
  CUDA_CHECK(cudaFreeHost(h_filter));
  CUFFT_CHECK(cufftDestroy(filter_plan));
  CUFFT_CHECK(cufftDestroy(frames_plan));
  CUDA_CHECK(cudaStreamDestroy(output));
  CUDA_CHECK(cudaStreamDestroy(ingest));
  return filtered;
}

int main() {
  const size_t len = 1 << 20;
  std::vector<float> signal(len);
  for (size_t i = 0; i < len; ++i)
    signal[i] = std::sin(0.01f * i) + 0.3f * std::sin(2.9f * i);

  // Windowed-sinc low-pass, cutoff at 0.05 of the sample rate.
  std::vector<float> taps(kTaps);
  const float fc = 0.05f, pi = 3.14159265f;
  for (int i = 0; i < kTaps; ++i) {
    int m = i - kTaps / 2;
    float sinc = m == 0 ? 2.0f * fc : std::sin(2.0f * pi * fc * m) / (pi * m);
    float hann = 0.5f - 0.5f * std::cos(2.0f * pi * i / (kTaps - 1));
    taps[i] = sinc * hann;
  }

  std::vector<float> y = fast_convolve(signal, taps);
  double energy = 0.0;
  for (float v : y) energy += static_cast<double>(v) * v;
  std::printf("output energy %.3f over %zu samples\n", energy, y.size());
  return 0;
}
