// Transcoding farm: one worker thread per input stream, each capturing its own per-frame graph
// in thread-local mode (upload of the decoded NV12 luma plane, 4x downscale, sharpening,
// download of the preview thumbnail). The thumbnail buffer is made while the graph is being
// captured, under a guard that switches this thread to relaxed capture mode for the allocation,
// as PyTorch's allocator does. The clear of the tile counters is a stream-ordered memset.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "[xcode] %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

constexpr int kW = 1280;
constexpr int kH = 720;
constexpr int kScale = 4;
constexpr int kTW = kW / kScale;
constexpr int kTH = kH / kScale;
constexpr int kTiles = 64;

// Switches the calling thread to relaxed capture mode for its lifetime, then restores the mode.
class RelaxedCaptureGuard {
 public:
  RelaxedCaptureGuard() { CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode_)); }
  ~RelaxedCaptureGuard() { CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode_)); }
  RelaxedCaptureGuard(const RelaxedCaptureGuard&) = delete;
  RelaxedCaptureGuard& operator=(const RelaxedCaptureGuard&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

__global__ void box_downscale(const uint8_t* luma, uint8_t* thumb, unsigned* tile_hits) {
  int tx = blockIdx.x * blockDim.x + threadIdx.x;
  int ty = blockIdx.y * blockDim.y + threadIdx.y;
  if (tx >= kTW || ty >= kTH) return;
  unsigned acc = 0;
  for (int dy = 0; dy < kScale; ++dy)
    for (int dx = 0; dx < kScale; ++dx) acc += luma[(ty * kScale + dy) * kW + tx * kScale + dx];
  uint8_t v = static_cast<uint8_t>(acc / (kScale * kScale));
  thumb[ty * kTW + tx] = v;
  if (v > 200) atomicAdd(&tile_hits[(ty * 8 / kTH) * 8 + tx * 8 / kTW], 1u);
}

__global__ void unsharp(uint8_t* thumb) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= kTW - 1 || y >= kTH - 1) return;
  int c = thumb[y * kTW + x];
  int blur = (thumb[y * kTW + x - 1] + thumb[y * kTW + x + 1] + thumb[(y - 1) * kTW + x] + thumb[(y + 1) * kTW + x]) / 4;
  int v = c + (c - blur) / 2;
  thumb[y * kTW + x] = static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

static void decode_next(uint8_t* dst, int input, int frame) {
  for (int i = 0; i < kW * kH; ++i) dst[i] = static_cast<uint8_t>((i / kW + frame * 3 + input * 31) & 0xFF);
}

static void transcode_worker(int input, int frames, uint64_t* checksum) {
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const size_t luma_bytes = size_t(kW) * kH;
  const size_t thumb_bytes = size_t(kTW) * kTH;

  uint8_t *h_luma = nullptr, *h_thumb = nullptr, *d_luma = nullptr, *d_thumb = nullptr;
  unsigned* d_tiles = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_luma, luma_bytes));
  CUDA_CHECK(cudaMallocHost(&h_thumb, thumb_bytes));
  CUDA_CHECK(cudaMalloc(&d_luma, luma_bytes));
  CUDA_CHECK(cudaMalloc(&d_tiles, kTiles * sizeof(unsigned)));

  const dim3 blk(16, 16);
  const dim3 grd((kTW + 15) / 16, (kTH + 15) / 16);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  {
    RelaxedCaptureGuard relaxed;
    CUDA_CHECK(cudaMalloc(&d_thumb, thumb_bytes));
  }
  CUDA_CHECK(cudaMemcpyAsync(d_luma, h_luma, luma_bytes, cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaMemsetAsync(d_tiles, 0, kTiles * sizeof(unsigned), s));
  box_downscale<<<grd, blk, 0, s>>>(d_luma, d_thumb, d_tiles);
  unsharp<<<grd, blk, 0, s>>>(d_thumb);
  CUDA_CHECK(cudaMemcpyAsync(h_thumb, d_thumb, thumb_bytes, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_CHECK(cudaGraphDestroy(graph));

  uint64_t sum = 0;
  for (int f = 0; f < frames; ++f) {
    decode_next(h_luma, input, f);
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < thumb_bytes; i += 97) sum = sum * 131 + h_thumb[i];
  }
  *checksum = sum;

  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaFree(d_tiles));
  CUDA_CHECK(cudaFree(d_thumb));
  CUDA_CHECK(cudaFree(d_luma));
  CUDA_CHECK(cudaFreeHost(h_thumb));
  CUDA_CHECK(cudaFreeHost(h_luma));
  CUDA_CHECK(cudaStreamDestroy(s));
}

int main() {
  const int inputs = 4;
  std::vector<uint64_t> sums(inputs, 0);
  std::vector<std::thread> pool;
  for (int i = 0; i < inputs; ++i) pool.emplace_back(transcode_worker, i, 150, &sums[i]);
  for (std::thread& t : pool) t.join();
  for (int i = 0; i < inputs; ++i) std::printf("input %d: thumbnail checksum %016llx\n", i, (unsigned long long)sums[i]);
  return 0;
}
