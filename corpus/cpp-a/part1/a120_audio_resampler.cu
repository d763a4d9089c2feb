// case: polyphase audio resampler class whose input and output blocks are std::vector<float> members; both cudaMemcpyAsync calls use the pageable vectors (sizes known only at run time), then the stream is synchronized
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "resampler: %s (%s:%d)\n", cudaGetErrorString(e_),   \
                   __FILE__, __LINE__);                                         \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

// Linear-interpolation resampling of interleaved multichannel audio.
__global__ void resample_linear(const float* __restrict__ in, int in_frames, float* __restrict__ out,
                                int out_frames, int channels, double ratio) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= out_frames) return;
  double src = f / ratio;
  int i0 = static_cast<int>(src);
  int i1 = min(i0 + 1, in_frames - 1);
  float frac = static_cast<float>(src - i0);
  for (int c = 0; c < channels; ++c)
    out[f * channels + c] = (1.f - frac) * in[i0 * channels + c] + frac * in[i1 * channels + c];
}

class Resampler {
 public:
  Resampler(int in_rate, int out_rate, int channels, int block_frames)
      : ratio_(double(out_rate) / in_rate), channels_(channels), in_frames_(block_frames) {
    out_frames_ = static_cast<int>(std::floor(block_frames * ratio_));
    in_.resize(size_t(in_frames_) * channels_);
    out_.resize(size_t(out_frames_) * channels_);
    CUDA_CHECK(cudaStreamCreate(&stream_));
    CUDA_CHECK(cudaMalloc(&d_in_, in_.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out_, out_.size() * sizeof(float)));
  }

  ~Resampler() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_out_);
    cudaFree(d_in_);
    cudaStreamDestroy(stream_);
  }

  std::vector<float>& input() { return in_; }

  const std::vector<float>& process() {
    CUDA_CHECK(cudaMemcpyAsync(d_in_, in_.data(), in_.size() * sizeof(float), cudaMemcpyHostToDevice, stream_));  // EXPECT: pageable_async_copy
    resample_linear<<<(out_frames_ + 255) / 256, 256, 0, stream_>>>(d_in_, in_frames_, d_out_, out_frames_, channels_, ratio_);
    CUDA_CHECK(cudaMemcpyAsync(out_.data(), d_out_, out_.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_));  // EXPECT: pageable_async_copy
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return out_;
  }

 private:
  double ratio_;
  int channels_;
  int in_frames_;
  int out_frames_ = 0;
  std::vector<float> in_;
  std::vector<float> out_;
  cudaStream_t stream_ = nullptr;
  float* d_in_ = nullptr;
  float* d_out_ = nullptr;
};

int main(int argc, char** argv) {
  const int block = argc > 1 ? std::atoi(argv[1]) : 1 << 16;
  Resampler rs(44100, 48000, 2, block);
  double rms = 0.0;
  for (int b = 0; b < 100; ++b) {
    std::vector<float>& in = rs.input();
    for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.05 * double(b * block + i / 2));
    const std::vector<float>& out = rs.process();
    for (float v : out) rms += double(v) * v;
  }
  std::printf("rms energy %.3f\n", rms);
  return 0;
}
