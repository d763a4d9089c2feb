// case: a zero-copy frame stager defines STAGER_WRITE_COMBINED itself, so its #ifdef picks write-combined|mapped flags for a pinned buffer that a kernel also writes a motion mask into; after the sync the host counts the mask bytes from that buffer (uncached reads).
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// Upload-heavy deployment: frames are written once by the CPU and read by the GPU.
#define STAGER_WRITE_COMBINED 1

#ifdef STAGER_WRITE_COMBINED
#define STAGER_HOST_FLAGS (cudaHostAllocWriteCombined | cudaHostAllocMapped)
#else
#define STAGER_HOST_FLAGS cudaHostAllocMapped
#endif

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void motion_mask(const uint8_t* cur, const uint8_t* prev, size_t pixels, uint8_t* mask) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < pixels) mask[i] = (abs(int(cur[i]) - int(prev[i])) > 24) ? 1 : 0;
}

class FrameStager {
 public:
  explicit FrameStager(size_t pixels) : pixels_(pixels) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    // layout: [ frame | motion mask ]
    CUDA_CHECK(cudaHostAlloc(&host_, 2 * pixels_, STAGER_HOST_FLAGS));
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_view_), host_, 0));
    CUDA_CHECK(cudaMalloc(&d_prev_, pixels_));
    CUDA_CHECK(cudaMemsetAsync(d_prev_, 0, pixels_, stream_));
  }
  ~FrameStager() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_prev_);
    cudaFreeHost(host_);
    cudaStreamDestroy(stream_);
  }

  size_t process(int frame_no) {
    uint8_t* frame = host_;
    for (size_t i = 0; i < pixels_; ++i) frame[i] = static_cast<uint8_t>((i / 640 + frame_no * 5) & 0xff);
    unsigned blocks = static_cast<unsigned>((pixels_ + 255) / 256);
    motion_mask<<<blocks, 256, 0, stream_>>>(dev_view_, d_prev_, pixels_, dev_view_ + pixels_);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(d_prev_, host_, pixels_, cudaMemcpyHostToDevice, stream_));  // keep this frame as the reference
    CUDA_CHECK(cudaStreamSynchronize(stream_));

    const uint8_t* mask = host_ + pixels_;
    size_t moving = 0;
    for (size_t i = 0; i < pixels_; ++i) moving += mask[i];  // EXPECT: write_combined_host_read
    return moving;
  }

 private:
  size_t pixels_;
  cudaStream_t stream_ = nullptr;
  uint8_t* host_ = nullptr;
  uint8_t* dev_view_ = nullptr;
  uint8_t* d_prev_ = nullptr;
};

int main() {
  CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  FrameStager stager(640 * 480);
  for (int f = 0; f < 12; ++f) {
    size_t moving = stager.process(f);
    if (moving > 640 * 48) std::printf("frame %d: motion in %zu pixels\n", f, moving);
  }
  return 0;
}
