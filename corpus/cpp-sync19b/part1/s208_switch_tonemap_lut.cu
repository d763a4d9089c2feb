// case: tone mapper uploads a LUT and switches over modes; the nearest-LUT case breaks out right after its launch, so the cudaFree of the LUT after the switch waits only by cudaFree's implicit sync on that path
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

enum class ToneMap { kNearest, kLinear, kIdentity };

constexpr int kLutSize = 256;

__global__ void lut_nearest_kernel(const float* in, const float* lut, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int k = static_cast<int>(fminf(fmaxf(in[i], 0.0f), 1.0f) * (kLutSize - 1) + 0.5f);
    out[i] = lut[k];
  }
}

__global__ void lut_linear_kernel(const float* in, const float* lut, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = fminf(fmaxf(in[i], 0.0f), 1.0f) * (kLutSize - 1);
    int k = min(static_cast<int>(x), kLutSize - 2);
    float t = x - k;
    out[i] = lut[k] * (1.0f - t) + lut[k + 1] * t;
  }
}

void tone_map(ToneMap mode, const float* d_in, float* d_out, int n, float gamma, cudaStream_t stream) {
  std::vector<float> lut(kLutSize);
  for (int k = 0; k < kLutSize; ++k) lut[k] = std::pow(k / float(kLutSize - 1), 1.0f / gamma);
  float* d_lut = nullptr;
  cudaMalloc(&d_lut, kLutSize * sizeof(float));
  cudaMemcpy(d_lut, lut.data(), kLutSize * sizeof(float), cudaMemcpyHostToDevice);

  const int grid = (n + 255) / 256;
  switch (mode) {
    case ToneMap::kNearest:
      lut_nearest_kernel<<<grid, 256, 0, stream>>>(d_in, d_lut, d_out, n);
      break;
    case ToneMap::kLinear:
      lut_linear_kernel<<<grid, 256, 0, stream>>>(d_in, d_lut, d_out, n);
      cudaStreamSynchronize(stream);
      break;
    case ToneMap::kIdentity:
      cudaMemcpyAsync(d_out, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
      cudaStreamSynchronize(stream);
      break;
  }
  cudaFree(d_lut);  // EXPECT: relies_on_implicit_sync
}

int main(int argc, char** argv) {
  const int n = 1920 * 1080;
  const ToneMap mode = argc > 1 ? static_cast<ToneMap>(argv[1][0] - '0') : ToneMap::kNearest;

  std::vector<float> h_img(n);
  for (int i = 0; i < n; ++i) h_img[i] = static_cast<float>(i % 1920) / 1919.0f;
  float *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h_img.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  tone_map(mode, d_in, d_out, n, 2.2f, stream);

  cudaMemcpy(h_img.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("pixel 960: %f\n", h_img[960]);

  cudaFree(d_in);
  cudaFree(d_out);
  cudaStreamDestroy(stream);
  return 0;
}
