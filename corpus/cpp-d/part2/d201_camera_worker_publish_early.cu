// case: a per-camera analytics worker copies its detection scores back on its own non-blocking stream, and publish() reads the pinned scores before process() synchronizes the stream (the sync only comes after publish).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), \
                   __FILE__, __LINE__);                                         \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)

constexpr int kTiles = 4096;

__global__ void score_tiles(const unsigned char* frame, int pixels, float* scores) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kTiles) return;
  int tile = pixels / kTiles;
  float acc = 0.f;
  for (int i = 0; i < tile; ++i) acc += frame[t * tile + i];
  scores[t] = acc / (255.f * tile);
}

class CameraWorker {
 public:
  CameraWorker(int id, int width, int height, float threshold)
      : id_(id), pixels_(width * height), threshold_(threshold) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_frame_, pixels_));
    CUDA_CHECK(cudaMalloc(&d_scores_, kTiles * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_frame_, pixels_));
    CUDA_CHECK(cudaMallocHost(&h_scores_, kTiles * sizeof(float)));
  }
  ~CameraWorker() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(h_scores_);
    cudaFreeHost(h_frame_);
    cudaFree(d_scores_);
    cudaFree(d_frame_);
    cudaStreamDestroy(stream_);
  }
  CameraWorker(const CameraWorker&) = delete;
  CameraWorker& operator=(const CameraWorker&) = delete;

  void process(int frame_no) {
    capture(frame_no);
    enqueue();
    publish(frame_no);
    // the next frame reuses h_frame_ and h_scores_
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  int alerts() const { return alerts_; }

 private:
  void capture(int frame_no) {
    for (int i = 0; i < pixels_; ++i)
      h_frame_[i] = static_cast<unsigned char>((i * 7 + frame_no * 13 + id_) & 0xff);
  }

  void enqueue() {
    CUDA_CHECK(cudaMemcpyAsync(d_frame_, h_frame_, pixels_, cudaMemcpyHostToDevice, stream_));
    score_tiles<<<(kTiles + 255) / 256, 256, 0, stream_>>>(d_frame_, pixels_, d_scores_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_scores_, d_scores_, kTiles * sizeof(float),
                               cudaMemcpyDeviceToHost, stream_));
  }

  void publish(int frame_no) {
    int hits = 0;
    for (int t = 0; t < kTiles; ++t) {
      if (this->h_scores_[t] > threshold_) ++hits;  // EXPECT: missing_sync
    }
    if (hits > kTiles / 8) {
      ++alerts_;
      std::printf("camera %d frame %d: %d hot tiles\n", id_, frame_no, hits);
    }
  }

  int id_;
  int pixels_;
  float threshold_;
  int alerts_ = 0;
  cudaStream_t stream_ = nullptr;
  unsigned char* d_frame_ = nullptr;
  unsigned char* h_frame_ = nullptr;
  float* d_scores_ = nullptr;
  float* h_scores_ = nullptr;
};

int main() {
  CameraWorker lobby(0, 1920, 1080, 0.6f);
  CameraWorker dock(1, 1280, 720, 0.55f);
  for (int f = 0; f < 30; ++f) {
    lobby.process(f);
    dock.process(f);
  }
  std::printf("alerts: lobby=%d dock=%d\n", lobby.alerts(), dock.alerts());
  return 0;
}
