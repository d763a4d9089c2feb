// case: Video edge-detection loop allocates its one pinned staging buffer write-combined (good for the frame upload) but reuses it for the readback: after the D2H copy and the stream synchronize, the host histogram reads the write-combined buffer, which the CPU does not cache.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kW = 1920, kH = 1080;
constexpr size_t kFrameBytes = size_t(kW) * kH;

__global__ void sobel(const uint8_t* in, uint8_t* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[y * w + x] = 0;
    return;
  }
  int gx = -in[(y - 1) * w + x - 1] + in[(y - 1) * w + x + 1] - 2 * in[y * w + x - 1] +
           2 * in[y * w + x + 1] - in[(y + 1) * w + x - 1] + in[(y + 1) * w + x + 1];
  int gy = -in[(y - 1) * w + x - 1] - 2 * in[(y - 1) * w + x] - in[(y - 1) * w + x + 1] +
           in[(y + 1) * w + x - 1] + 2 * in[(y + 1) * w + x] + in[(y + 1) * w + x + 1];
  int g = abs(gx) + abs(gy);
  out[y * w + x] = g > 255 ? 255 : uint8_t(g);
}

int main() {
  uint8_t* h_stage = nullptr;
  CUDA_CHECK(cudaHostAlloc(&h_stage, kFrameBytes, cudaHostAllocWriteCombined));
  uint8_t *d_frame, *d_edges;
  CUDA_CHECK(cudaMalloc(&d_frame, kFrameBytes));
  CUDA_CHECK(cudaMalloc(&d_edges, kFrameBytes));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  unsigned long long hist[16] = {};
  dim3 block(32, 8), grid((kW + 31) / 32, (kH + 7) / 8);
  for (int f = 0; f < 30; ++f) {
    for (size_t i = 0; i < kFrameBytes; ++i) h_stage[i] = uint8_t((i * 13 + f * 7) & 0xff);
    CUDA_CHECK(cudaMemcpyAsync(d_frame, h_stage, kFrameBytes, cudaMemcpyHostToDevice, stream));
    sobel<<<grid, block, 0, stream>>>(d_frame, d_edges, kW, kH);
    CUDA_CHECK(cudaMemcpyAsync(h_stage, d_edges, kFrameBytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (size_t i = 0; i < kFrameBytes; ++i) hist[h_stage[i] >> 4]++;  // EXPECT: write_combined_host_read
  }
  for (int b = 0; b < 16; ++b) printf("bin %2d: %llu\n", b, hist[b]);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_frame));
  CUDA_CHECK(cudaFree(d_edges));
  CUDA_CHECK(cudaFreeHost(h_stage));
  return 0;
}
