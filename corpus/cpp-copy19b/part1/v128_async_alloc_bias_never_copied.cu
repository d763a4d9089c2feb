// case: stream-ordered bias+GELU layer that allocates activations and bias with cudaMallocAsync, uploads only the activations, and launches a kernel that reads the never-written bias
// expect: uninitialized_device_read=1
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define TOKENS 2048
#define HIDDEN 1024
#define BLOCK 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void bias_gelu(const float *x, const float *bias, float *y, int hidden, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  float v = x[i] + bias[i % hidden];
  y[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

int main() {
  const size_t act_bytes = sizeof(float) * TOKENS * HIDDEN;
  const size_t bias_bytes = sizeof(float) * HIDDEN;

  float *h_x, *h_y, *h_bias;
  CUDA_CHECK(cudaMallocHost(&h_x, act_bytes));
  CUDA_CHECK(cudaMallocHost(&h_y, act_bytes));
  CUDA_CHECK(cudaMallocHost(&h_bias, bias_bytes));
  for (int i = 0; i < TOKENS * HIDDEN; ++i) h_x[i] = sinf(0.01f * i);
  for (int j = 0; j < HIDDEN; ++j) h_bias[j] = 0.001f * j;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *d_x, *d_y, *d_bias;
  CUDA_CHECK(cudaMallocAsync(&d_x, act_bytes, stream));
  CUDA_CHECK(cudaMallocAsync(&d_y, act_bytes, stream));
  CUDA_CHECK(cudaMallocAsync(&d_bias, bias_bytes, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, act_bytes, cudaMemcpyHostToDevice, stream));

  const int total = TOKENS * HIDDEN;
  bias_gelu<<<(total + BLOCK - 1) / BLOCK, BLOCK, 0, stream>>>(d_x, d_bias, d_y, HIDDEN, total); // EXPECT: uninitialized_device_read
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, act_bytes, cudaMemcpyDeviceToHost, stream));

  CUDA_CHECK(cudaFreeAsync(d_x, stream));
  CUDA_CHECK(cudaFreeAsync(d_y, stream));
  CUDA_CHECK(cudaFreeAsync(d_bias, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  double s = 0.0;
  for (int i = 0; i < total; ++i) s += h_y[i];
  printf("mean activation %f\n", s / total);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaFreeHost(h_y));
  CUDA_CHECK(cudaFreeHost(h_bias));
  return 0;
}
