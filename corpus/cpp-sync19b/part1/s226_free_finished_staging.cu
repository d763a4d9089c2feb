// case: weights arrive through a device staging buffer that only two copies on the copy stream use, and that stream is synchronized; the staging buffer is then freed while an unrelated kernel runs on the compute stream
// expect: none
#include <cuda_runtime.h>
#include <cstdio>

__global__ void relu_layer_kernel(const float* w, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(w[i] * x[i], 0.0f);
}

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  cudaStream_t copy_stream, compute_stream;
  cudaStreamCreate(&copy_stream);
  cudaStreamCreate(&compute_stream);

  float *h_w = nullptr, *h_x = nullptr, *h_y = nullptr;
  cudaMallocHost(&h_w, bytes);
  cudaMallocHost(&h_x, bytes);
  cudaMallocHost(&h_y, bytes);
  for (int i = 0; i < n; ++i) {
    h_w[i] = (i % 3) - 1.0f;
    h_x[i] = 0.5f * (i % 11);
  }

  float *d_stage = nullptr, *d_w = nullptr, *d_x = nullptr, *d_y = nullptr;
  cudaMalloc(&d_stage, bytes);
  cudaMalloc(&d_w, bytes);
  cudaMalloc(&d_x, bytes);
  cudaMalloc(&d_y, bytes);

  // weights: host -> staging -> final location, both on the copy stream, then waited for
  cudaMemcpyAsync(d_stage, h_w, bytes, cudaMemcpyHostToDevice, copy_stream);
  cudaMemcpyAsync(d_w, d_stage, bytes, cudaMemcpyDeviceToDevice, copy_stream);
  cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, copy_stream);
  cudaStreamSynchronize(copy_stream);

  relu_layer_kernel<<<(n + 255) / 256, 256, 0, compute_stream>>>(d_w, d_x, d_y, n);
  cudaFree(d_stage);  // only the finished copies used it

  cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, compute_stream);
  cudaStreamSynchronize(compute_stream);
  std::printf("y[5]=%f y[7]=%f\n", h_y[5], h_y[7]);

  cudaFree(d_w);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFreeHost(h_w);
  cudaFreeHost(h_x);
  cudaFreeHost(h_y);
  cudaStreamDestroy(copy_stream);
  cudaStreamDestroy(compute_stream);
  return 0;
}
