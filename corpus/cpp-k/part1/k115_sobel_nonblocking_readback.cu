// case: An edge detector runs its upload and Sobel kernel on a cudaStreamNonBlocking stream, then reads the edges back with a plain cudaMemcpy, which runs on the legacy default stream and does not wait for the non-blocking stream's kernel.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(stmt)                                                       \
  do {                                                                         \
    cudaError_t rc_ = (stmt);                                                  \
    if (rc_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed at %s:%d: %s\n", #stmt, __FILE__,        \
                   __LINE__, cudaGetErrorString(rc_));                         \
      std::exit(EXIT_FAILURE);                                                 \
    }                                                                          \
  } while (0)

struct Image {
  int width = 0, height = 0;
  size_t pixels() const { return size_t(width) * height; }
};

__global__ void sobel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[y * w + x] = 0;
    return;
  }
  auto at = [&](int dx, int dy) { return int(in[(y + dy) * w + (x + dx)]); };
  int gx = -at(-1, -1) - 2 * at(-1, 0) - at(-1, 1) + at(1, -1) + 2 * at(1, 0) + at(1, 1);
  int gy = -at(-1, -1) - 2 * at(0, -1) - at(1, -1) + at(-1, 1) + 2 * at(0, 1) + at(1, 1);
  int mag = abs(gx) + abs(gy);
  out[y * w + x] = static_cast<uint8_t>(mag > 255 ? 255 : mag);
}

class EdgeDetector {
 public:
  explicit EdgeDetector(const Image& img) : img_(img) {
    // non-blocking so we do not serialize with other libraries' default-stream work
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_in_, img_.pixels()));
    CUDA_CHECK(cudaMalloc(&d_out_, img_.pixels()));
    CUDA_CHECK(cudaMallocHost(&h_in_, img_.pixels()));
  }
  ~EdgeDetector() {
    cudaStreamSynchronize(stream_);
    cudaFreeHost(h_in_);
    cudaFree(d_out_);
    cudaFree(d_in_);
    cudaStreamDestroy(stream_);
  }

  uint8_t* input() { return h_in_; }

  void run(std::vector<uint8_t>& edges) {
    CUDA_CHECK(cudaMemcpyAsync(d_in_, h_in_, img_.pixels(), cudaMemcpyHostToDevice, stream_));
    dim3 block(32, 8);
    dim3 grid((img_.width + block.x - 1) / block.x, (img_.height + block.y - 1) / block.y);
    sobel<<<grid, block, 0, stream_>>>(d_in_, d_out_, img_.width, img_.height);
    CUDA_CHECK(cudaGetLastError());
    edges.resize(img_.pixels());
    CUDA_CHECK(cudaMemcpy(edges.data(), d_out_, img_.pixels(), cudaMemcpyDeviceToHost));  // EXPECT: missing_sync
  }

 private:
  Image img_;
  cudaStream_t stream_ = nullptr;
  uint8_t* d_in_ = nullptr;
  uint8_t* d_out_ = nullptr;
  uint8_t* h_in_ = nullptr;
};

int main() {
  Image img{2048, 1536};
  EdgeDetector det(img);
  uint8_t* px = det.input();
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      px[size_t(y) * img.width + x] = static_cast<uint8_t>(((x / 64) + (y / 64)) % 2 ? 220 : 30);

  std::vector<uint8_t> edges;
  det.run(edges);

  size_t strong = 0;
  for (uint8_t e : edges) strong += e > 128;
  std::printf("%zu strong edge pixels (%.2f%%)\n", strong, 100.0 * strong / img.pixels());
  return 0;
}
