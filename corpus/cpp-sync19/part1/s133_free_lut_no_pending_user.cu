// case: near miss: colour grading with a 3-D LUT on the legacy stream; the LUT is freed after the next stage (a vignette pass that does not use it) is launched, but every kernel that read the LUT was already waited for
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return EXIT_FAILURE;                                                     \
    }                                                                          \
  } while (0)

constexpr int kLut = 33;

__global__ void build_lut(float3* lut, float contrast) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kLut * kLut * kLut) return;
  const float r = (i % kLut) / float(kLut - 1);
  const float g = (i / kLut % kLut) / float(kLut - 1);
  const float b = (i / (kLut * kLut)) / float(kLut - 1);
  auto curve = [contrast](float v) { return 1.f / (1.f + __expf(-contrast * (v - 0.5f))); };
  lut[i] = make_float3(curve(r), curve(g), curve(b));
}

__global__ void apply_lut(const float3* __restrict__ in, const float3* __restrict__ lut,
                          float3* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int r = __float2int_rn(fminf(fmaxf(in[i].x, 0.f), 1.f) * (kLut - 1));
  const int g = __float2int_rn(fminf(fmaxf(in[i].y, 0.f), 1.f) * (kLut - 1));
  const int b = __float2int_rn(fminf(fmaxf(in[i].z, 0.f), 1.f) * (kLut - 1));
  out[i] = lut[(b * kLut + g) * kLut + r];
}

__global__ void vignette(float3* img, int w, int h, float strength) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= w || y >= h) return;
  const float dx = (x - 0.5f * w) / w, dy = (y - 0.5f * h) / h;
  const float k = 1.f - strength * (dx * dx + dy * dy);
  float3& p = img[y * w + x];
  p.x *= k;
  p.y *= k;
  p.z *= k;
}

int main(int argc, char** argv) {
  const int w = argc > 1 ? std::atoi(argv[1]) : 1920;
  const int h = argc > 2 ? std::atoi(argv[2]) : 1080;
  const int n = w * h;

  std::vector<float3> img(n);
  for (int i = 0; i < n; ++i) img[i] = make_float3((i % w) / float(w), (i / w) / float(h), 0.5f);

  float3 *d_in = nullptr, *d_out = nullptr, *d_lut = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(float3)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float3)));
  CHECK(cudaMalloc(&d_lut, kLut * kLut * kLut * sizeof(float3)));
  CHECK(cudaMemcpy(d_in, img.data(), n * sizeof(float3), cudaMemcpyHostToDevice));

  build_lut<<<(kLut * kLut * kLut + 255) / 256, 256>>>(d_lut, 6.f);
  apply_lut<<<(n + 255) / 256, 256>>>(d_in, d_lut, d_out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  vignette<<<dim3((w + 255) / 256, h), 256>>>(d_out, w, h, 0.8f);
  CHECK(cudaGetLastError());
  CHECK(cudaFree(d_lut));

  CHECK(cudaMemcpy(img.data(), d_out, n * sizeof(float3), cudaMemcpyDeviceToHost));
  std::printf("centre pixel %.3f %.3f %.3f\n", img[n / 2 + w / 2].x, img[n / 2 + w / 2].y, img[n / 2 + w / 2].z);

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return 0;
}
