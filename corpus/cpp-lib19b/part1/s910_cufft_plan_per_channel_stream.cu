// Welch power spectral density of a stereo recording. Each channel has its
// own stream, its own R2C plan and its own buffers, so the two channels are
// transformed concurrently; the host reports the left channel as soon as its
// stream is done, while the right channel may still be running.
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

constexpr int kN = 2048;            // segment length
constexpr int kHop = kN / 2;        // 50% overlap
constexpr int kBins = kN / 2 + 1;
constexpr int kSamples = 1 << 20;
constexpr int kFrames = (kSamples - kN) / kHop + 1;

__global__ void frame_and_window(const float* pcm, cufftReal* frames, int n, int hop,
                                 int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n * count) return;
  int f = i / n, k = i % n;
  float w = 0.5f - 0.5f * cosf(6.2831853f * k / (n - 1));
  frames[i] = pcm[f * hop + k] * w;
}

__global__ void average_power(const cufftComplex* spec, float* psd, int bins, int count) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= bins) return;
  float acc = 0.0f;
  for (int f = 0; f < count; ++f) {
    cufftComplex v = spec[static_cast<size_t>(f) * bins + b];
    acc += v.x * v.x + v.y * v.y;
  }
  psd[b] = acc / count;
}

struct Channel {
  cudaStream_t stream = nullptr;
  cufftHandle plan = 0;
  float* h_pcm = nullptr;       // pinned
  float* h_psd = nullptr;       // pinned
  float* d_pcm = nullptr;
  cufftReal* d_frames = nullptr;
  cufftComplex* d_spec = nullptr;
  float* d_psd = nullptr;
};

static void channel_init(Channel& ch) {
  CUDA_CHECK(cudaStreamCreateWithFlags(&ch.stream, cudaStreamNonBlocking));
  CUFFT_CHECK(cufftPlan1d(&ch.plan, kN, CUFFT_R2C, kFrames));
  CUFFT_CHECK(cufftSetStream(ch.plan, ch.stream));
  CUDA_CHECK(cudaMallocHost(&ch.h_pcm, sizeof(float) * kSamples));
  CUDA_CHECK(cudaMallocHost(&ch.h_psd, sizeof(float) * kBins));
  CUDA_CHECK(cudaMalloc(&ch.d_pcm, sizeof(float) * kSamples));
  CUDA_CHECK(cudaMalloc(&ch.d_frames, sizeof(cufftReal) * kN * kFrames));
  CUDA_CHECK(cudaMalloc(&ch.d_spec, sizeof(cufftComplex) * kBins * kFrames));
  CUDA_CHECK(cudaMalloc(&ch.d_psd, sizeof(float) * kBins));
}

// Caller has waited for ch.stream.
static void channel_destroy(Channel& ch) {
  CUDA_CHECK(cudaFree(ch.d_psd));
  CUDA_CHECK(cudaFree(ch.d_spec));
  CUDA_CHECK(cudaFree(ch.d_frames));
  CUDA_CHECK(cudaFree(ch.d_pcm));
  CUDA_CHECK(cudaFreeHost(ch.h_psd));
  CUDA_CHECK(cudaFreeHost(ch.h_pcm));
  CUFFT_CHECK(cufftDestroy(ch.plan));
  CUDA_CHECK(cudaStreamDestroy(ch.stream));
}

static void enqueue_psd(Channel& ch) {
  CUDA_CHECK(cudaMemcpyAsync(ch.d_pcm, ch.h_pcm, sizeof(float) * kSamples,
                             cudaMemcpyHostToDevice, ch.stream));
  const int total = kN * kFrames;
  frame_and_window<<<(total + 255) / 256, 256, 0, ch.stream>>>(ch.d_pcm, ch.d_frames, kN,
                                                                kHop, kFrames);
  CUDA_CHECK(cudaGetLastError());
  CUFFT_CHECK(cufftExecR2C(ch.plan, ch.d_frames, ch.d_spec));
  average_power<<<(kBins + 127) / 128, 128, 0, ch.stream>>>(ch.d_spec, ch.d_psd, kBins,
                                                            kFrames);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(ch.h_psd, ch.d_psd, sizeof(float) * kBins,
                             cudaMemcpyDeviceToHost, ch.stream));
}

static void report(const char* name, const float* psd) {
  int peak = 1;
  for (int b = 2; b < kBins; ++b)
    if (psd[b] > psd[peak]) peak = b;
  std::printf("%-5s peak at bin %4d (%.1f dB)\n", name, peak, 10.0 * std::log10(psd[peak]));
}

int main() {
  Channel left, right;
  channel_init(left);
  channel_init(right);
  for (int i = 0; i < kSamples; ++i) {
    left.h_pcm[i] = std::sin(0.05f * i) + 0.01f * std::sin(1.3f * i);
    right.h_pcm[i] = std::sin(0.21f * i) + 0.01f * std::cos(0.7f * i);
  }

  enqueue_psd(left);
  enqueue_psd(right);

  // The left result is complete once the left stream is; the right channel's
  // transform touches none of the left channel's buffers.
  CUDA_CHECK(cudaStreamSynchronize(left.stream));
  report("left", left.h_psd);

  CUDA_CHECK(cudaStreamSynchronize(right.stream));
  report("right", right.h_psd);

  channel_destroy(right);
  channel_destroy(left);
  return 0;
}
