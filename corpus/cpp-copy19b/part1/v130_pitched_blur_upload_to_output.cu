// case: box blur on pitched images whose cudaMemcpy2D upload targets the output image instead of the input, so the kernel reads a cudaMallocPitch input nothing wrote
// expect: uninitialized_device_read=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define IMG_W 1280
#define IMG_H 720
#define RADIUS 2

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void box_blur(const unsigned char *src, size_t src_pitch, unsigned char *dst,
                         size_t dst_pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int sum = 0, count = 0;
  for (int dy = -RADIUS; dy <= RADIUS; ++dy) {
    int yy = y + dy;
    if (yy < 0 || yy >= h) continue;
    const unsigned char *row = src + yy * src_pitch;
    for (int dx = -RADIUS; dx <= RADIUS; ++dx) {
      int xx = x + dx;
      if (xx < 0 || xx >= w) continue;
      sum += row[xx];
      ++count;
    }
  }
  dst[y * dst_pitch + x] = (unsigned char)(sum / count);
}

int main() {
  unsigned char *h_img = (unsigned char *)malloc(IMG_W * IMG_H);
  unsigned char *h_out = (unsigned char *)malloc(IMG_W * IMG_H);
  for (int y = 0; y < IMG_H; ++y)
    for (int x = 0; x < IMG_W; ++x) h_img[y * IMG_W + x] = (unsigned char)((x ^ y) & 0xff);

  unsigned char *d_in, *d_out;
  size_t in_pitch, out_pitch;
  CUDA_CHECK(cudaMallocPitch((void **)&d_in, &in_pitch, IMG_W, IMG_H));
  CUDA_CHECK(cudaMallocPitch((void **)&d_out, &out_pitch, IMG_W, IMG_H));

  CUDA_CHECK(cudaMemcpy2D(d_out, out_pitch, h_img, IMG_W, IMG_W, IMG_H, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((IMG_W + 31) / 32, (IMG_H + 7) / 8);
  box_blur<<<grid, block>>>(d_in, in_pitch, d_out, out_pitch, IMG_W, IMG_H); // EXPECT: uninitialized_device_read
  CUDA_CHECK(cudaGetLastError());

  CUDA_CHECK(cudaMemcpy2D(h_out, IMG_W, d_out, out_pitch, IMG_W, IMG_H, cudaMemcpyDeviceToHost));

  long long diff = 0;
  for (int i = 0; i < IMG_W * IMG_H; ++i) diff += abs((int)h_out[i] - (int)h_img[i]);
  printf("mean absolute change: %.3f\n", (double)diff / (IMG_W * IMG_H));

  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  free(h_img);
  free(h_out);
  return 0;
}
