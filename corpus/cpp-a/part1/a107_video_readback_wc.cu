// case: video frame converter; both host buffers are cudaHostAlloc'd write-combined: the NV12 upload buffer is only written by the host (fine), but the RGB readback buffer is read by the luma histogram after the sync
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t rc_ = (call);                                                   \
    if (rc_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "video: %s at %s:%d\n", cudaGetErrorString(rc_),     \
                   __FILE__, __LINE__);                                         \
      std::exit(3);                                                             \
    }                                                                           \
  } while (0)

__global__ void nv12_to_rgb(const uint8_t* __restrict__ nv12, uint8_t* __restrict__ rgb, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const uint8_t* uv = nv12 + width * height;
  float Y = nv12[y * width + x];
  float U = uv[(y / 2) * width + (x & ~1)] - 128.f;
  float V = uv[(y / 2) * width + (x & ~1) + 1] - 128.f;
  uint8_t* px = rgb + 3 * (y * width + x);
  px[0] = static_cast<uint8_t>(fminf(fmaxf(Y + 1.402f * V, 0.f), 255.f));
  px[1] = static_cast<uint8_t>(fminf(fmaxf(Y - 0.344f * U - 0.714f * V, 0.f), 255.f));
  px[2] = static_cast<uint8_t>(fminf(fmaxf(Y + 1.772f * U, 0.f), 255.f));
}

class FrameConverter {
 public:
  FrameConverter(int width, int height) : width_(width), height_(height) {
    nv12_bytes_ = static_cast<size_t>(width) * height * 3 / 2;
    rgb_bytes_ = static_cast<size_t>(width) * height * 3;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    // "write-combined pinned memory transfers faster" -- used for both directions
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_nv12_), nv12_bytes_, cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_rgb_), rgb_bytes_, cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaMalloc(&d_nv12_, nv12_bytes_));
    CUDA_CHECK(cudaMalloc(&d_rgb_, rgb_bytes_));
  }

  ~FrameConverter() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_rgb_);
    cudaFree(d_nv12_);
    cudaFreeHost(h_rgb_);
    cudaFreeHost(h_nv12_);
    cudaStreamDestroy(stream_);
  }

  std::array<uint32_t, 16> convert_and_histogram(const uint8_t* decoded_nv12) {
    std::memcpy(h_nv12_, decoded_nv12, nv12_bytes_);  // write-only use of write-combined memory
    CUDA_CHECK(cudaMemcpyAsync(d_nv12_, h_nv12_, nv12_bytes_, cudaMemcpyHostToDevice, stream_));
    dim3 block(32, 8);
    dim3 grid((width_ + 31) / 32, (height_ + 7) / 8);
    nv12_to_rgb<<<grid, block, 0, stream_>>>(d_nv12_, d_rgb_, width_, height_);
    CUDA_CHECK(cudaMemcpyAsync(h_rgb_, d_rgb_, rgb_bytes_, cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));

    std::array<uint32_t, 16> hist{};
    const size_t pixels = static_cast<size_t>(width_) * height_;
    for (size_t p = 0; p < pixels; ++p) {
      const uint8_t* px = h_rgb_ + 3 * p;  // pointer arithmetic only
      unsigned luma = (77u * px[0] + 150u * px[1] + 29u * px[2]) >> 8;  // EXPECT: write_combined_host_read
      ++hist[luma >> 4];
    }
    return hist;
  }

 private:
  int width_, height_;
  size_t nv12_bytes_ = 0, rgb_bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  uint8_t* h_nv12_ = nullptr;
  uint8_t* h_rgb_ = nullptr;
  uint8_t* d_nv12_ = nullptr;
  uint8_t* d_rgb_ = nullptr;
};

int main() {
  const int w = 1920, h = 1080;
  std::vector<uint8_t> frame(static_cast<size_t>(w) * h * 3 / 2, 128);
  FrameConverter conv(w, h);
  for (int f = 0; f < 30; ++f) {
    frame[f] = static_cast<uint8_t>(f * 8);
    std::array<uint32_t, 16> hist = conv.convert_and_histogram(frame.data());
    std::printf("frame %d: dark=%u bright=%u\n", f, hist[0], hist[15]);
  }
  return 0;
}
