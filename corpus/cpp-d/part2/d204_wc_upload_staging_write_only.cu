// case: a video encoder's uploader fills a write-combined staging buffer (memcpy into it, memset, element stores) and only ever writes it; the per-plane sums it reads back land in a separate cudaMallocHost buffer; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                           \
    }                                                                         \
  } while (0)

__global__ void plane_sums(const uint8_t* planes, size_t luma, size_t chroma, unsigned long long* sums) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < luma) atomicAdd(&sums[0], (unsigned long long)planes[i]);
  else if (i < luma + chroma) atomicAdd(&sums[1], (unsigned long long)planes[i]);
}

class FrameUploader {
 public:
  FrameUploader(int width, int height)
      : luma_bytes_(size_t(width) * height), chroma_bytes_(luma_bytes_ / 2),
        total_(luma_bytes_ + chroma_bytes_) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    // upload-only staging: write-combined is what it is for
    CUDA_CHECK(cudaHostAlloc(&staging_, total_, cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaMallocHost(&h_sums_, 2 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&d_planes_, total_));
    CUDA_CHECK(cudaMalloc(&d_sums_, 2 * sizeof(unsigned long long)));
  }
  ~FrameUploader() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_sums_);
    cudaFree(d_planes_);
    cudaFreeHost(h_sums_);
    cudaFreeHost(staging_);
    cudaStreamDestroy(stream_);
  }

  // The previous frame's copy out of staging_ finished: finish() synchronized.
  void upload(const std::vector<uint8_t>& luma, uint8_t neutral_chroma, bool letterbox) {
    std::memcpy(staging_, luma.data(), luma_bytes_);
    std::memset(staging_ + luma_bytes_, neutral_chroma, chroma_bytes_);
    if (letterbox) {
      const size_t bar = luma_bytes_ / 10;
      for (size_t i = 0; i < bar; ++i) staging_[i] = 16;  // black bar, stored only
    }
    CUDA_CHECK(cudaMemcpyAsync(d_planes_, staging_, total_, cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemsetAsync(d_sums_, 0, 2 * sizeof(unsigned long long), stream_));
    unsigned blocks = static_cast<unsigned>((total_ + 255) / 256);
    plane_sums<<<blocks, 256, 0, stream_>>>(d_planes_, luma_bytes_, chroma_bytes_, d_sums_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_sums_, d_sums_, 2 * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, stream_));
  }

  double finish() {
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return static_cast<double>(h_sums_[0]) / luma_bytes_;
  }

 private:
  size_t luma_bytes_;
  size_t chroma_bytes_;
  size_t total_;
  cudaStream_t stream_ = nullptr;
  uint8_t* staging_ = nullptr;
  unsigned long long* h_sums_ = nullptr;
  uint8_t* d_planes_ = nullptr;
  unsigned long long* d_sums_ = nullptr;
};

int main() {
  const int w = 1920, h = 1080;
  FrameUploader up(w, h);
  std::vector<uint8_t> luma(size_t(w) * h);
  for (int f = 0; f < 24; ++f) {
    for (size_t i = 0; i < luma.size(); ++i) luma[i] = static_cast<uint8_t>((i + f * 3) & 0xff);
    up.upload(luma, 128, f % 2 == 0);
    std::printf("frame %d mean luma %.2f\n", f, up.finish());
  }
  return 0;
}
