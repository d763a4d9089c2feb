// case: Rodinia-style fused layer y = w*x + b uploads x, w and then (copy-paste slip) the bias into d_x again, so d_bias is never written before the kernel reads it; the same-size pasted copy is in bounds.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

#define N (1 << 20)

__global__ void fused_layer(const float* x, const float* w, const float* bias, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = w[i] * x[i] + bias[i];
    y[i] = v > 0.f ? v : 0.01f * v;
  }
}

int main() {
  float* h_x = (float*)malloc(N * sizeof(float));
  float* h_w = (float*)malloc(N * sizeof(float));
  float* h_bias = (float*)malloc(N * sizeof(float));
  float* h_y = (float*)malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) {
    h_x[i] = (float)(i % 255) / 255.0f;
    h_w[i] = 0.5f - (float)(i % 7) / 7.0f;
    h_bias[i] = 0.01f * (float)(i % 3);
  }

  float *d_x, *d_w, *d_bias, *d_y;
  CUDA_CHECK(cudaMalloc((void**)&d_x, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void**)&d_w, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void**)&d_bias, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void**)&d_y, N * sizeof(float)));

  CUDA_CHECK(cudaMemcpy(d_x, h_x, N * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_w, h_w, N * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_x, h_bias, N * sizeof(float), cudaMemcpyHostToDevice));

  fused_layer<<<(N + 255) / 256, 256>>>(d_x, d_w, d_bias, d_y, N);  // EXPECT: uninitialized_device_read
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost));

  double sum = 0.0;
  for (int i = 0; i < N; ++i) sum += h_y[i];
  printf("sum(y) = %f\n", sum);

  cudaFree(d_x);
  cudaFree(d_w);
  cudaFree(d_bias);
  cudaFree(d_y);
  free(h_x);
  free(h_w);
  free(h_bias);
  free(h_y);
  return 0;
}
