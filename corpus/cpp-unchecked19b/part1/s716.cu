// case: a box-blur helper only launches its kernel and returns; every caller checks cudaGetLastError right after calling it, before synchronizing.
// expect: none
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                          \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void box_blur3(const uint8_t* src, uint8_t* dst, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int sum = 0, cnt = 0;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = x + dx, yy = y + dy;
      if (xx >= 0 && yy >= 0 && xx < w && yy < h) {
        sum += src[yy * w + xx];
        ++cnt;
      }
    }
  }
  dst[y * w + x] = static_cast<uint8_t>(sum / cnt);
}

// Enqueues one blur pass on the default stream. Errors are the caller's to check.
static void launch_blur(const uint8_t* d_src, uint8_t* d_dst, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  box_blur3<<<grid, block>>>(d_src, d_dst, w, h);
}

int main() {
  const int w = 1920, h = 1080, passes = 4;
  const size_t bytes = static_cast<size_t>(w) * h;
  std::vector<uint8_t> img(bytes);
  for (size_t i = 0; i < bytes; ++i) img[i] = static_cast<uint8_t>((i * 37) & 0xff);

  uint8_t *d_a = nullptr, *d_b = nullptr;
  CUDA_CHECK(cudaMalloc(&d_a, bytes));
  CUDA_CHECK(cudaMalloc(&d_b, bytes));
  CUDA_CHECK(cudaMemcpy(d_a, img.data(), bytes, cudaMemcpyHostToDevice));

  for (int p = 0; p < passes; ++p) {
    launch_blur(d_a, d_b, w, h);
    CUDA_CHECK(cudaGetLastError());
    uint8_t* t = d_a;
    d_a = d_b;
    d_b = t;
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(img.data(), d_a, bytes, cudaMemcpyDeviceToHost));

  unsigned long long total = 0;
  for (uint8_t v : img) total += v;
  std::printf("mean after %d passes: %.2f\n", passes, static_cast<double>(total) / bytes);

  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  return 0;
}
