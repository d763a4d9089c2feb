// case: 2D convolution whose constant-memory mask holds a 3x3 filter but receives the whole 5x5 host filter through cudaMemcpyToSymbol, more than the symbol holds
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define MASK_DIM 3
#define MASK_OFFSET (MASK_DIM / 2)
#define HOST_MASK_DIM 5
#define IMG_W 1024
#define IMG_H 768

#define CUDA_CHECK(x)                                                        \
  do {                                                                       \
    cudaError_t status = (x);                                                \
    if (status != cudaSuccess) {                                             \
      fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(status));    \
      std::exit(EXIT_FAILURE);                                               \
    }                                                                        \
  } while (0)

__constant__ float c_mask[MASK_DIM * MASK_DIM];

__global__ void convolution_2d(const float *in, float *out, int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= w || row >= h) return;
  float sum = 0.0f;
  for (int i = 0; i < MASK_DIM; ++i) {
    for (int j = 0; j < MASK_DIM; ++j) {
      int r = row - MASK_OFFSET + i;
      int c = col - MASK_OFFSET + j;
      if (r >= 0 && r < h && c >= 0 && c < w) sum += in[r * w + c] * c_mask[i * MASK_DIM + j];
    }
  }
  out[row * w + col] = sum;
}

static void make_gaussian(float *mask, int dim) {
  float total = 0.0f;
  for (int i = 0; i < dim; ++i)
    for (int j = 0; j < dim; ++j) {
      float v = 1.0f / (1.0f + (i - dim / 2) * (i - dim / 2) + (j - dim / 2) * (j - dim / 2));
      mask[i * dim + j] = v;
      total += v;
    }
  for (int i = 0; i < dim * dim; ++i) mask[i] /= total;
}

int main() {
  float h_mask[HOST_MASK_DIM * HOST_MASK_DIM];
  make_gaussian(h_mask, HOST_MASK_DIM);

  std::vector<float> h_in(IMG_W * IMG_H), h_out(IMG_W * IMG_H);
  for (size_t i = 0; i < h_in.size(); ++i) h_in[i] = (float)((i * 7) % 255);

  const size_t bytes = sizeof(float) * IMG_W * IMG_H;
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, bytes));
  CUDA_CHECK(cudaMalloc(&d_out, bytes));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(c_mask, h_mask, sizeof(h_mask))); // EXPECT: copy_out_of_bounds

  dim3 threads(32, 8);
  dim3 blocks((IMG_W + threads.x - 1) / threads.x, (IMG_H + threads.y - 1) / threads.y);
  convolution_2d<<<blocks, threads>>>(d_in, d_out, IMG_W, IMG_H);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));

  printf("out[center] = %f\n", h_out[(IMG_H / 2) * IMG_W + IMG_W / 2]);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return 0;
}
