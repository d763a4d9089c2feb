// case: near miss: Sobel edge detection on the legacy stream; cudaDeviceSynchronize comes before the input image is freed, then the edges are copied back with a blocking cudaMemcpy
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,              \
                   cudaGetErrorString(err_));                              \
      std::exit(EXIT_FAILURE);                                             \
    }                                                                      \
  } while (0)

__global__ void sobel(const float* __restrict__ in, float* __restrict__ mag, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    mag[y * w + x] = 0.f;
    return;
  }
  auto at = [&](int dx, int dy) { return in[(y + dy) * w + (x + dx)]; };
  const float gx = -at(-1, -1) - 2.f * at(-1, 0) - at(-1, 1) + at(1, -1) + 2.f * at(1, 0) + at(1, 1);
  const float gy = -at(-1, -1) - 2.f * at(0, -1) - at(1, -1) + at(-1, 1) + 2.f * at(0, 1) + at(1, 1);
  mag[y * w + x] = sqrtf(gx * gx + gy * gy);
}

int main(int argc, char** argv) {
  const int w = argc > 1 ? std::atoi(argv[1]) : 2560;
  const int h = argc > 2 ? std::atoi(argv[2]) : 1440;
  const size_t bytes = size_t(w) * h * sizeof(float);

  std::vector<float> img(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img[size_t(y) * w + x] = (std::hypot(x - w / 2.0, y - h / 2.0) < 300.0) ? 1.f : 0.f;

  float *d_in = nullptr, *d_mag = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, bytes));
  CUDA_CHECK(cudaMalloc(&d_mag, bytes));
  CUDA_CHECK(cudaMemcpy(d_in, img.data(), bytes, cudaMemcpyHostToDevice));

  const dim3 block(16, 16);
  const dim3 grid((w + 15) / 16, (h + 15) / 16);
  sobel<<<grid, block>>>(d_in, d_mag, w, h);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d_in));

  std::vector<float> mag(size_t(w) * h);
  CUDA_CHECK(cudaMemcpy(mag.data(), d_mag, bytes, cudaMemcpyDeviceToHost));
  size_t edges = 0;
  for (float m : mag) edges += m > 1.f;
  std::printf("%zu edge pixels\n", edges);

  CUDA_CHECK(cudaFree(d_mag));
  return 0;
}
