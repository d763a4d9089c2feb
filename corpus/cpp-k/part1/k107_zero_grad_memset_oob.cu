// case: One SGD step of a linear layer zeroes its gradient buffers before accumulating; the bias-gradient memset was copy-pasted from the weight-gradient one and clears kIn*kOut floats of a kOut-float allocation.
// expect: copy_out_of_bounds=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                          \
  do {                                                                         \
    cudaError_t err = (x);                                                     \
    if (err != cudaSuccess) {                                                  \
      fprintf(stderr, "CUDA %s failed: %s\n", #x, cudaGetErrorString(err));    \
      exit(EXIT_FAILURE);                                                      \
    }                                                                          \
  } while (0)

constexpr int kBatch = 64;
constexpr int kIn = 512;
constexpr int kOut = 256;
constexpr float kLearningRate = 0.01f;

// dW[o][k] += dy[n][o] * x[n][k]; db[o] += dy[n][o]
__global__ void linear_backward(const float* __restrict__ x, const float* __restrict__ dy,
                                float* __restrict__ dW, float* __restrict__ db) {
  int o = blockIdx.x;
  for (int k = threadIdx.x; k < kIn; k += blockDim.x) {
    float acc = 0.f;
    for (int n = 0; n < kBatch; ++n) acc += dy[n * kOut + o] * x[n * kIn + k];
    dW[o * kIn + k] += acc;
  }
  if (threadIdx.x == 0) {
    float acc = 0.f;
    for (int n = 0; n < kBatch; ++n) acc += dy[n * kOut + o];
    db[o] += acc;
  }
}

__global__ void sgd_update(float* __restrict__ p, const float* __restrict__ g, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] -= lr * g[i] / kBatch;
}

struct LinearParams {
  float* W = nullptr;
  float* b = nullptr;
  float* dW = nullptr;
  float* db = nullptr;
};

static void alloc_params(LinearParams& p) {
  CUDA_CHECK(cudaMalloc(&p.W, kIn * kOut * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&p.b, kOut * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&p.dW, kIn * kOut * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&p.db, kOut * sizeof(float)));
}

static void free_params(LinearParams& p) {
  CUDA_CHECK(cudaFree(p.W));
  CUDA_CHECK(cudaFree(p.b));
  CUDA_CHECK(cudaFree(p.dW));
  CUDA_CHECK(cudaFree(p.db));
}

static void zero_grad(LinearParams& p) {
  CUDA_CHECK(cudaMemset(p.dW, 0, kIn * kOut * sizeof(float)));
  CUDA_CHECK(cudaMemset(p.db, 0, kIn * kOut * sizeof(float)));  // EXPECT: copy_out_of_bounds
}

int main() {
  std::vector<float> hW(kIn * kOut), hb(kOut, 0.f), hx(kBatch * kIn), hdy(kBatch * kOut);
  for (int i = 0; i < kIn * kOut; ++i) hW[i] = ((i * 37) % 101 - 50) * 1e-3f;
  for (int i = 0; i < kBatch * kIn; ++i) hx[i] = ((i * 13) % 29) / 29.f;
  for (int i = 0; i < kBatch * kOut; ++i) hdy[i] = ((i * 7) % 11 - 5) * 0.1f;

  LinearParams p;
  alloc_params(p);
  float *d_x, *d_dy;
  CUDA_CHECK(cudaMalloc(&d_x, kBatch * kIn * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_dy, kBatch * kOut * sizeof(float)));

  CUDA_CHECK(cudaMemcpy(p.W, hW.data(), kIn * kOut * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(p.b, hb.data(), kOut * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_x, hx.data(), kBatch * kIn * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_dy, hdy.data(), kBatch * kOut * sizeof(float), cudaMemcpyHostToDevice));

  zero_grad(p);
  linear_backward<<<kOut, 128>>>(d_x, d_dy, p.dW, p.db);
  sgd_update<<<(kIn * kOut + 255) / 256, 256>>>(p.W, p.dW, kIn * kOut, kLearningRate);
  sgd_update<<<(kOut + 255) / 256, 256>>>(p.b, p.db, kOut, kLearningRate);
  CUDA_CHECK(cudaGetLastError());

  CUDA_CHECK(cudaMemcpy(hW.data(), p.W, kIn * kOut * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hb.data(), p.b, kOut * sizeof(float), cudaMemcpyDeviceToHost));
  double wnorm = 0.0;
  for (float w : hW) wnorm += double(w) * w;
  printf("after one step: |W|^2 = %.6f, b[0] = %.6f\n", wnorm, hb[0]);

  CUDA_CHECK(cudaFree(d_dy));
  CUDA_CHECK(cudaFree(d_x));
  free_params(p);
  return 0;
}
