// case: A frame tone-mapper keeps its device buffers in file-scope globals; setup allocates the frame buffers but not d_gamma_lut, so the LUT upload copies into a null pointer (the kernel itself tolerates a missing LUT by testing it for null).
// expect: unallocated_pointer=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t s_ = (call);                                                   \
    if (s_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(s_));         \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

static uchar4* d_src;
static uchar4* d_dst;
static float* d_gamma_lut;  // 256 entries, optional
static int g_width, g_height;

__global__ void tone_map(const uchar4* __restrict__ src, uchar4* __restrict__ dst,
                         const float* __restrict__ lut, float exposure, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 p = src[i];
  float r = p.x * exposure, g = p.y * exposure, b = p.z * exposure;
  r = fminf(r, 255.f);
  g = fminf(g, 255.f);
  b = fminf(b, 255.f);
  if (lut != nullptr) {
    r = lut[(int)r];
    g = lut[(int)g];
    b = lut[(int)b];
  }
  dst[i] = make_uchar4((unsigned char)r, (unsigned char)g, (unsigned char)b, p.w);
}

static void setup(int w, int h) {
  g_width = w;
  g_height = h;
  const size_t bytes = size_t(w) * h * sizeof(uchar4);
  CHECK(cudaMalloc(&d_src, bytes));
  CHECK(cudaMalloc(&d_dst, bytes));
}

static void upload_gamma(float gamma) {
  float lut[256];
  for (int i = 0; i < 256; ++i) lut[i] = 255.f * std::pow(i / 255.f, 1.f / gamma);
  cudaError_t e = cudaMemcpy(d_gamma_lut, lut, sizeof(lut), cudaMemcpyHostToDevice);  // EXPECT: unallocated_pointer
  if (e != cudaSuccess) std::fprintf(stderr, "warning: gamma LUT not uploaded (%s)\n", cudaGetErrorString(e));
}

static void teardown() {
  cudaFree(d_gamma_lut);
  cudaFree(d_dst);
  cudaFree(d_src);
}

int main(int argc, char** argv) {
  const int w = 1920, h = 1080;
  const float exposure = argc > 1 ? std::strtof(argv[1], nullptr) : 1.4f;
  setup(w, h);
  upload_gamma(2.2f);

  std::vector<uchar4> frame(size_t(w) * h);
  for (size_t i = 0; i < frame.size(); ++i) {
    unsigned char v = static_cast<unsigned char>((i * 31) & 0xff);
    frame[i] = make_uchar4(v, v / 2, 255 - v, 255);
  }
  CHECK(cudaMemcpy(d_src, frame.data(), frame.size() * sizeof(uchar4), cudaMemcpyHostToDevice));

  const int n = g_width * g_height;
  tone_map<<<(n + 255) / 256, 256>>>(d_src, d_dst, d_gamma_lut, exposure, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(frame.data(), d_dst, frame.size() * sizeof(uchar4), cudaMemcpyDeviceToHost));

  unsigned long long luma = 0;
  for (const uchar4& p : frame) luma += (p.x * 2126u + p.y * 7152u + p.z * 722u) / 10000u;
  std::printf("mean luma %.2f\n", double(luma) / frame.size());
  teardown();
  return 0;
}
