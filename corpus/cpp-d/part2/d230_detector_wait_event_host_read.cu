// case: a video-analytics detector pipeline makes its inference stream wait (cudaStreamWaitEvent) on the box-copy event and then reads the pinned boxes on the host as if it had waited, and it also bumps a managed per-camera stats struct while the inference kernel (which never touches it) may still run.
// expect: missing_sync=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kMaxBoxes = 1024;
struct Box { float x0, y0, x1, y1, score; };
struct CameraStats { unsigned long long frames; unsigned long long boxes; float last_top_score; };

__global__ void detect(const float* frame, int w, int h, int seed, Box* boxes) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= kMaxBoxes) return;
  int cx = (b * 37 + seed) % w, cy = (b * 53 + seed) % h;
  float s = frame[cy * w + cx];
  boxes[b] = Box{float(cx) - 8.f, float(cy) - 8.f, float(cx) + 8.f, float(cy) + 8.f, s};
}

__global__ void synth_frame(float* frame, int pixels, int seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels) frame[i] = static_cast<float>((i * 2654435761u + seed) % 1000) / 1000.f;
}

class DetectorPipeline {
 public:
  DetectorPipeline(int w, int h) : w_(w), h_(h) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&infer_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&infer_done_, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&boxes_ready_, cudaEventDisableTiming));
    CUDA_CHECK(cudaMalloc(&d_frame_, size_t(w_) * h_ * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_boxes_, kMaxBoxes * sizeof(Box)));
    CUDA_CHECK(cudaMallocHost(&h_boxes_, kMaxBoxes * sizeof(Box)));
    CUDA_CHECK(cudaMallocManaged(&stats_, sizeof(CameraStats)));
    *stats_ = CameraStats{0, 0, 0.f};
  }
  ~DetectorPipeline() {
    cudaDeviceSynchronize();
    cudaFree(stats_);
    cudaFreeHost(h_boxes_);
    cudaFree(d_boxes_);
    cudaFree(d_frame_);
    cudaEventDestroy(boxes_ready_);
    cudaEventDestroy(infer_done_);
    cudaStreamDestroy(copy_);
    cudaStreamDestroy(infer_);
  }

  void step(int frame_no) {
    synth_frame<<<(w_ * h_ + 255) / 256, 256, 0, infer_>>>(d_frame_, w_ * h_, frame_no);
    detect<<<(kMaxBoxes + 127) / 128, 128, 0, infer_>>>(d_frame_, w_, h_, frame_no, d_boxes_);
    CUDA_CHECK(cudaEventRecord(infer_done_, infer_));
    CUDA_CHECK(cudaStreamWaitEvent(copy_, infer_done_, 0));
    CUDA_CHECK(cudaMemcpyAsync(h_boxes_, d_boxes_, kMaxBoxes * sizeof(Box), cudaMemcpyDeviceToHost, copy_));
    CUDA_CHECK(cudaEventRecord(boxes_ready_, copy_));
    CUDA_CHECK(cudaStreamWaitEvent(infer_, boxes_ready_, 0));  // "wait for the boxes"

    stats_->frames += 1;  // EXPECT: managed_concurrent_access
    int kept = 0;
    float top = 0.f;
    for (int b = 0; b < kMaxBoxes; ++b) {
      if (h_boxes_[b].score > 0.9f) {  // EXPECT: missing_sync
        ++kept;
        if (h_boxes_[b].score > top) top = h_boxes_[b].score;
      }
    }
    CUDA_CHECK(cudaStreamSynchronize(infer_));
    stats_->boxes += kept;
    stats_->last_top_score = top;
  }

  const CameraStats& stats() const { return *stats_; }

 private:
  int w_, h_;
  cudaStream_t infer_ = nullptr, copy_ = nullptr;
  cudaEvent_t infer_done_ = nullptr, boxes_ready_ = nullptr;
  float* d_frame_ = nullptr;
  Box* d_boxes_ = nullptr;
  Box* h_boxes_ = nullptr;
  CameraStats* stats_ = nullptr;
};

int main() {
  auto pipeline = std::make_unique<DetectorPipeline>(1280, 720);
  for (int f = 0; f < 100; ++f) pipeline->step(f);
  const CameraStats& s = pipeline->stats();
  std::printf("%llu frames, %llu boxes, last top score %.3f\n", s.frames, s.boxes, s.last_top_score);
  return 0;
}
