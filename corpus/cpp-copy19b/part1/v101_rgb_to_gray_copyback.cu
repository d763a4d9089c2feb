// case: converts an RGB frame to grayscale on the GPU and copies the one-channel result back with the three-channel byte count, overrunning the device output and the host buffer
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define WIDTH 1920
#define HEIGHT 1080
#define CHANNELS 3

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), \
              __FILE__, __LINE__);                                          \
      exit(EXIT_FAILURE);                                                   \
    }                                                                       \
  } while (0)

__global__ void rgb_to_gray(const unsigned char *rgb, unsigned char *gray, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int idx = y * w + x;
  const unsigned char *p = rgb + idx * CHANNELS;
  gray[idx] = (unsigned char)(0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2]);
}

int main() {
  const size_t rgb_bytes = WIDTH * HEIGHT * CHANNELS;
  const size_t gray_bytes = WIDTH * HEIGHT;

  unsigned char *h_rgb = (unsigned char *)malloc(rgb_bytes);
  unsigned char *h_gray = (unsigned char *)malloc(gray_bytes);
  for (size_t i = 0; i < rgb_bytes; ++i) h_rgb[i] = (unsigned char)((i * 37u) & 0xffu);

  unsigned char *d_rgb = nullptr, *d_gray = nullptr;
  CUDA_CHECK(cudaMalloc(&d_rgb, rgb_bytes));
  CUDA_CHECK(cudaMalloc(&d_gray, gray_bytes));
  CUDA_CHECK(cudaMemcpy(d_rgb, h_rgb, rgb_bytes, cudaMemcpyHostToDevice));

  dim3 block(16, 16);
  dim3 grid((WIDTH + block.x - 1) / block.x, (HEIGHT + block.y - 1) / block.y);
  rgb_to_gray<<<grid, block>>>(d_rgb, d_gray, WIDTH, HEIGHT);
  CUDA_CHECK(cudaGetLastError());

  CUDA_CHECK(cudaMemcpy(h_gray, d_gray, rgb_bytes, cudaMemcpyDeviceToHost)); // EXPECT: copy_out_of_bounds

  unsigned long hist[256] = {0};
  for (size_t i = 0; i < gray_bytes; ++i) hist[h_gray[i]]++;
  int peak = 0;
  for (int b = 1; b < 256; ++b)
    if (hist[b] > hist[peak]) peak = b;
  printf("most frequent gray level: %d (%lu pixels)\n", peak, hist[peak]);

  CUDA_CHECK(cudaFree(d_rgb));
  CUDA_CHECK(cudaFree(d_gray));
  free(h_rgb);
  free(h_gray);
  return 0;
}
