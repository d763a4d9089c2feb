// case: Sobel edge filter on pitched device images moved with cudaMemcpy2D (row pitch wider than the host rows), a 2D copy outside the lint's scope and correct anyway
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define IMG_W 1000
#define IMG_H 600

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "CUDA: %s at %s:%d\n", cudaGetErrorString(e_),       \
              __FILE__, __LINE__);                                         \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void sobel(const float *in, size_t in_pitch, float *out, size_t out_pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float *out_row = (float *)((char *)out + y * out_pitch);
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out_row[x] = 0.0f;
    return;
  }
  auto px = [&](int xx, int yy) { return ((const float *)((const char *)in + yy * in_pitch))[xx]; };
  float gx = -px(x - 1, y - 1) - 2.f * px(x - 1, y) - px(x - 1, y + 1) + px(x + 1, y - 1) +
             2.f * px(x + 1, y) + px(x + 1, y + 1);
  float gy = -px(x - 1, y - 1) - 2.f * px(x, y - 1) - px(x + 1, y - 1) + px(x - 1, y + 1) +
             2.f * px(x, y + 1) + px(x + 1, y + 1);
  out_row[x] = sqrtf(gx * gx + gy * gy);
}

int main() {
  const size_t row_bytes = IMG_W * sizeof(float);
  float *h_in = (float *)malloc(row_bytes * IMG_H);
  float *h_out = (float *)malloc(row_bytes * IMG_H);
  for (int y = 0; y < IMG_H; ++y)
    for (int x = 0; x < IMG_W; ++x) h_in[y * IMG_W + x] = (x / 50 + y / 50) % 2 ? 1.0f : 0.0f;

  float *d_in, *d_out;
  size_t in_pitch = 0, out_pitch = 0;
  CUDA_CHECK(cudaMallocPitch((void **)&d_in, &in_pitch, row_bytes, IMG_H));
  CUDA_CHECK(cudaMallocPitch((void **)&d_out, &out_pitch, row_bytes, IMG_H));

  CUDA_CHECK(cudaMemcpy2D(d_in, in_pitch, h_in, row_bytes, row_bytes, IMG_H, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((IMG_W + block.x - 1) / block.x, (IMG_H + block.y - 1) / block.y);
  sobel<<<grid, block>>>(d_in, in_pitch, d_out, out_pitch, IMG_W, IMG_H);
  CUDA_CHECK(cudaGetLastError());

  CUDA_CHECK(cudaMemcpy2D(h_out, row_bytes, d_out, out_pitch, row_bytes, IMG_H, cudaMemcpyDeviceToHost));

  int edges = 0;
  for (int i = 0; i < IMG_W * IMG_H; ++i)
    if (h_out[i] > 1.0f) ++edges;
  printf("edge pixels: %d (pitch %zu / %zu bytes for %zu-byte rows)\n", edges, in_pitch, out_pitch,
         row_bytes);

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  free(h_in);
  free(h_out);
  return 0;
}
