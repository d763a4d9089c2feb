// Temporal denoiser of a video pipeline: each frame's graph uploads the decoded frame from a
// pinned staging buffer, blends it into a running exponential average kept on the device and
// writes a motion mask. To keep the GPU busy the loop does not wait per frame; the staging
// buffer is refilled for frame k+1 while frame k's replay may still be copying out of it.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t rc_ = (call);                                                             \
    if (rc_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "denoise: %s: %s\n", #call, cudaGetErrorString(rc_));          \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

constexpr int kW = 1920;
constexpr int kH = 1080;
constexpr int kPixels = kW * kH;

__global__ void temporal_blend(const uint8_t* frame, float* average, uint8_t* motion, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = frame[i];
  float a = average[i];
  motion[i] = fabsf(v - a) > 24.0f ? 255 : 0;
  // Moving pixels follow the new frame quickly; static ones average over many frames.
  float k = motion[i] ? 0.8f : alpha;
  average[i] = a + k * (v - a);
}

// Stand-in for the hardware decoder: a sequence of luma planes in ordinary memory.
class Decoder {
 public:
  explicit Decoder(int frames) : planes_(frames, std::vector<uint8_t>(kPixels)) {
    for (int f = 0; f < frames; ++f)
      for (int i = 0; i < kPixels; ++i) planes_[f][i] = static_cast<uint8_t>(((i % kW) + f * 5 + (i * 2654435761u >> 28)) & 0xFF);
  }
  int frames() const { return static_cast<int>(planes_.size()); }
  const uint8_t* plane(int f) const { return planes_[f].data(); }

 private:
  std::vector<std::vector<uint8_t>> planes_;
};

int main() {
  Decoder decoder(120);

  uint8_t* h_stage = nullptr;
  uint8_t *d_frame = nullptr, *d_motion = nullptr;
  float* d_avg = nullptr;
  CHECK(cudaMallocHost(&h_stage, kPixels));
  CHECK(cudaMalloc(&d_frame, kPixels));
  CHECK(cudaMalloc(&d_motion, kPixels));
  CHECK(cudaMalloc(&d_avg, kPixels * sizeof(float)));

  // Seed the running average from the first frame.
  std::vector<float> first(kPixels);
  for (int i = 0; i < kPixels; ++i) first[i] = decoder.plane(0)[i];
  CHECK(cudaMemcpy(d_avg, first.data(), kPixels * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g;
  cudaGraphExec_t frame_graph;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemcpyAsync(d_frame, h_stage, kPixels, cudaMemcpyHostToDevice, s));
  temporal_blend<<<(kPixels + 255) / 256, 256, 0, s>>>(d_frame, d_avg, d_motion, 0.1f, kPixels);
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&frame_graph, g, 0));
  CHECK(cudaGraphDestroy(g));

  for (int f = 1; f < decoder.frames(); ++f) {
    std::memcpy(h_stage, decoder.plane(f), kPixels);  // EXPECT: missing_sync
    CHECK(cudaGraphLaunch(frame_graph, s));
  }
  CHECK(cudaStreamSynchronize(s));

  float* h_avg = nullptr;
  CHECK(cudaMallocHost(&h_avg, kPixels * sizeof(float)));
  CHECK(cudaMemcpy(h_avg, d_avg, kPixels * sizeof(float), cudaMemcpyDeviceToHost));
  double mean = 0.0;
  for (int i = 0; i < kPixels; i += 64) mean += h_avg[i];
  std::printf("mean of denoised plane: %.2f\n", mean / (kPixels / 64));

  CHECK(cudaGraphExecDestroy(frame_graph));
  CHECK(cudaFreeHost(h_avg));
  CHECK(cudaFree(d_avg));
  CHECK(cudaFree(d_motion));
  CHECK(cudaFree(d_frame));
  CHECK(cudaFreeHost(h_stage));
  CHECK(cudaStreamDestroy(s));
  return 0;
}
