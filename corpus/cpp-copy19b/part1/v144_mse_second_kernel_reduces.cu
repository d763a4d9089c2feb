// case: mean-squared-error loss where one kernel writes per-element squared errors, a second kernel reduces that buffer into a scalar, and only the scalar is copied back; the per-element buffer is read by the reduction before it is freed
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define N (1 << 21)
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

__global__ void squared_error(const float *pred, const float *target, float *err, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float d = pred[i] - target[i];
    err[i] = d * d;
  }
}

__global__ void sum_reduce(const float *v, int n, float *out) {
  __shared__ float s[BLOCK];
  float acc = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += v[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

int main() {
  std::vector<float> h_pred(N), h_target(N);
  for (int i = 0; i < N; ++i) {
    h_pred[i] = 0.001f * (i % 1000);
    h_target[i] = 0.001f * ((i + 3) % 1000);
  }

  float *d_pred, *d_target, *d_err, *d_loss;
  CUDA_CHECK(cudaMalloc(&d_pred, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_target, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_err, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_loss, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_pred, h_pred.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_target, h_target.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_loss, 0, sizeof(float)));

  squared_error<<<(N + BLOCK - 1) / BLOCK, BLOCK>>>(d_pred, d_target, d_err, N);
  sum_reduce<<<512, BLOCK>>>(d_err, N, d_loss);
  CUDA_CHECK(cudaGetLastError());

  float loss = 0.f;
  CUDA_CHECK(cudaMemcpy(&loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost));
  printf("MSE = %f\n", loss / N);

  CUDA_CHECK(cudaFree(d_pred));
  CUDA_CHECK(cudaFree(d_target));
  CUDA_CHECK(cudaFree(d_err));
  CUDA_CHECK(cudaFree(d_loss));
  return 0;
}
