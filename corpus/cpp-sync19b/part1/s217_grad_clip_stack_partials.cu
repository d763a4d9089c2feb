// case: gradient clipping reads per-block partial sums of squares from a stack array filled by cudaMemcpyAsync before any stream synchronize, then decides whether to launch the scaling kernel
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

constexpr int kBlocks = 64;
constexpr int kThreads = 256;

__global__ void sumsq_partial_kernel(const float* g, int n, float* partial) {
  __shared__ float s[kThreads];
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += g[i] * g[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void scale_kernel(float* g, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] *= factor;
}

// returns the gradient norm before clipping
float clip_grad_norm(float* d_grad, int n, float max_norm, float* d_partial, cudaStream_t stream) {
  float partial[kBlocks];
  sumsq_partial_kernel<<<kBlocks, kThreads, 0, stream>>>(d_grad, n, d_partial);
  cudaMemcpyAsync(partial, d_partial, sizeof(partial), cudaMemcpyDeviceToHost, stream);

  float sumsq = 0.0f;
  for (int b = 0; b < kBlocks; ++b) sumsq += partial[b];  // EXPECT: relies_on_implicit_sync
  const float norm = std::sqrt(sumsq);
  if (norm > max_norm) {
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_grad, n, max_norm / norm);
  }
  return norm;
}

int main() {
  const int n = 1 << 20;
  std::vector<float> h_grad(n);
  for (int i = 0; i < n; ++i) h_grad[i] = 0.01f * ((i % 17) - 8);
  float *d_grad = nullptr, *d_partial = nullptr;
  cudaMalloc(&d_grad, n * sizeof(float));
  cudaMalloc(&d_partial, kBlocks * sizeof(float));
  cudaMemcpy(d_grad, h_grad.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  float norm = clip_grad_norm(d_grad, n, 1.0f, d_partial, stream);

  cudaStreamSynchronize(stream);
  cudaMemcpy(h_grad.data(), d_grad, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("norm before clipping %f, g[8] after %f\n", norm, h_grad[8]);
  cudaFree(d_grad);
  cudaFree(d_partial);
  cudaStreamDestroy(stream);
  return 0;
}
