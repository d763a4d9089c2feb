// case: Training loop accumulates the MSE loss with atomicAdd into mapped (zero-copy) pinned memory through its device alias; on logging steps the host prints *h_loss right after launching the loss kernel, before the cudaStreamSynchronize at the end of the step, so it reads a partial sum.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

__global__ void mse_loss(const float* pred, const float* target, float* loss, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float d = pred[i] - target[i];
    atomicAdd(loss, d * d);
  }
}

__global__ void sgd_step(float* pred, const float* target, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pred[i] -= lr * 2.0f * (pred[i] - target[i]);
}

int main() {
  CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  const int n = 1 << 20;
  const int steps = 200, log_every = 20;

  std::vector<float> h_pred(n), h_target(n);
  for (int i = 0; i < n; ++i) {
    h_pred[i] = 0.0f;
    h_target[i] = float(i % 100) / 100.0f;
  }
  float *d_pred, *d_target;
  CUDA_CHECK(cudaMalloc(&d_pred, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_target, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_pred, h_pred.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_target, h_target.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  float* h_loss = nullptr;
  CUDA_CHECK(cudaHostAlloc(&h_loss, sizeof(float), cudaHostAllocMapped));
  float* d_loss = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&d_loss, h_loss, 0));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const int grid = (n + 255) / 256;
  for (int step = 0; step < steps; ++step) {
    *h_loss = 0.0f;
    mse_loss<<<grid, 256, 0, stream>>>(d_pred, d_target, d_loss, n);
    if (step % log_every == 0)
      printf("step %4d  loss %.6f\n", step, *h_loss / n);  // EXPECT: missing_sync
    sgd_step<<<grid, 256, 0, stream>>>(d_pred, d_target, 0.1f, n);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  printf("final loss %.6f\n", *h_loss / n);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFreeHost(h_loss));
  CUDA_CHECK(cudaFree(d_pred));
  CUDA_CHECK(cudaFree(d_target));
  return 0;
}
