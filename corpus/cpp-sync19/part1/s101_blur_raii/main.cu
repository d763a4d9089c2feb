// case: separable Gaussian blur; the row-pass scratch image is a DeviceImage whose destructor cudaFrees it at the end of gaussian_blur, right after the column pass that reads it was launched
// expect: relies_on_implicit_sync=1
#include <cmath>
#include <cstdio>
#include <vector>

#include "device_image.cuh"

__global__ void blur_rows(const float* __restrict__ src, float* __restrict__ dst,
                          int w, int h, int radius, float sigma) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.f, norm = 0.f;
  for (int k = -radius; k <= radius; ++k) {
    const int xx = min(max(x + k, 0), w - 1);
    const float wgt = __expf(-(k * k) / (2.f * sigma * sigma));
    acc += wgt * src[y * w + xx];
    norm += wgt;
  }
  dst[y * w + x] = acc / norm;
}

__global__ void blur_cols(const float* __restrict__ src, float* __restrict__ dst,
                          int w, int h, int radius, float sigma) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.f, norm = 0.f;
  for (int k = -radius; k <= radius; ++k) {
    const int yy = min(max(y + k, 0), h - 1);
    const float wgt = __expf(-(k * k) / (2.f * sigma * sigma));
    acc += wgt * src[yy * w + x];
    norm += wgt;
  }
  dst[y * w + x] = acc / norm;
}

static void gaussian_blur(const DeviceImage<float>& src, DeviceImage<float>& dst,
                          float sigma, cudaStream_t stream) {
  const int w = src.width();
  const int h = src.height();
  const int radius = static_cast<int>(std::ceil(3.f * sigma));
  DeviceImage<float> tmp(w, h);

  const dim3 block(16, 16);
  const dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  blur_rows<<<grid, block, 0, stream>>>(src.data(), tmp.data(), w, h, radius, sigma);
  blur_cols<<<grid, block, 0, stream>>>(tmp.data(), dst.data(), w, h, radius, sigma);
  CUDA_CHECK(cudaGetLastError());
}  // EXPECT: relies_on_implicit_sync

int main(int argc, char** argv) {
  const int width = argc > 1 ? std::atoi(argv[1]) : 1920;
  const int height = argc > 2 ? std::atoi(argv[2]) : 1080;
  const float sigma = 2.5f;

  std::vector<float> host(static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      host[static_cast<size_t>(y) * width + x] = ((x / 32 + y / 32) % 2) ? 1.f : 0.f;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  DeviceImage<float> src(width, height);
  DeviceImage<float> dst(width, height);
  src.upload(host.data());

  gaussian_blur(src, dst, sigma, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<float> blurred(host.size());
  dst.download(blurred.data());
  double mean = 0.0;
  for (float v : blurred) mean += v;
  std::printf("mean after blur: %.6f\n", mean / blurred.size());

  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
