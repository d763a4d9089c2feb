// case: a pool of camera workers (std::vector of std::unique_ptr made by std::make_unique) records an event after each device-to-host copy and collect() waits on that event before reading the pinned histogram; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::abort();                                                            \
    }                                                                          \
  } while (0)

constexpr int kBins = 64;

__global__ void luma_histogram(const unsigned char* frame, size_t pixels, unsigned int* bins) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < pixels) atomicAdd(&bins[frame[i] / (256 / kBins)], 1u);
}

struct FrameSummary {
  int camera;
  unsigned int darkest_bin_count;
  unsigned int brightest_bin_count;
};

class CameraWorker {
 public:
  CameraWorker(int id, size_t pixels) : id_(id), pixels_(pixels) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
    CUDA_CHECK(cudaMallocHost(&h_frame_, pixels_));
    CUDA_CHECK(cudaMallocHost(&h_bins_, kBins * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&d_frame_, pixels_));
    CUDA_CHECK(cudaMalloc(&d_bins_, kBins * sizeof(unsigned int)));
  }
  ~CameraWorker() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_bins_);
    cudaFree(d_frame_);
    cudaFreeHost(h_bins_);
    cudaFreeHost(h_frame_);
    cudaEventDestroy(done_);
    cudaStreamDestroy(stream_);
  }

  void submit(int frame_no) {
    // collect() of the previous frame waited on done_, which follows this upload
    for (size_t i = 0; i < pixels_; ++i)
      h_frame_[i] = static_cast<unsigned char>((i + frame_no * 31 + id_ * 7) % 251);
    CUDA_CHECK(cudaMemcpyAsync(d_frame_, h_frame_, pixels_, cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemsetAsync(d_bins_, 0, kBins * sizeof(unsigned int), stream_));
    unsigned blocks = static_cast<unsigned>((pixels_ + 255) / 256);
    luma_histogram<<<blocks, 256, 0, stream_>>>(d_frame_, pixels_, d_bins_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_bins_, d_bins_, kBins * sizeof(unsigned int),
                               cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaEventRecord(done_, stream_));
  }

  FrameSummary collect() {
    CUDA_CHECK(cudaEventSynchronize(done_));
    FrameSummary s{id_, h_bins_[0], h_bins_[kBins - 1]};
    return s;
  }

 private:
  int id_;
  size_t pixels_;
  cudaStream_t stream_{};
  cudaEvent_t done_{};
  unsigned char* h_frame_ = nullptr;
  unsigned char* d_frame_ = nullptr;
  unsigned int* h_bins_ = nullptr;
  unsigned int* d_bins_ = nullptr;
};

int main() {
  std::vector<std::unique_ptr<CameraWorker>> pool;
  for (int id = 0; id < 4; ++id) pool.push_back(std::make_unique<CameraWorker>(id, 1280 * 720));

  unsigned long long dark_total = 0;
  for (int frame = 0; frame < 16; ++frame) {
    for (auto& worker : pool) worker->submit(frame);
    for (auto& worker : pool) {
      FrameSummary s = worker->collect();
      dark_total += s.darkest_bin_count;
      if (s.brightest_bin_count == 0) std::printf("camera %d: no highlights in frame %d\n", s.camera, frame);
    }
  }
  std::printf("dark pixels over all frames: %llu\n", dark_total);
  pool.clear();  // destructors synchronize each worker's stream before freeing
  return 0;
}
