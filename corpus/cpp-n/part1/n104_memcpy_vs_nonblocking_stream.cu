// case: PyTorch-extension-style GELU runs on a cudaStreamNonBlocking stream, then the validation path downloads the output with a plain cudaMemcpy, which runs on the legacy default stream and does not wait for non-blocking streams, so it can read d_y before the kernel wrote it.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

__global__ void gelu_fwd(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}

static float gelu_ref(float v) {
  return 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
}

int main() {
  const int n = 1 << 22;
  const size_t bytes = size_t(n) * sizeof(float);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *h_x, *d_x, *d_y;
  CUDA_CHECK(cudaMallocHost(&h_x, bytes));
  CUDA_CHECK(cudaMalloc(&d_x, bytes));
  CUDA_CHECK(cudaMalloc(&d_y, bytes));
  for (int i = 0; i < n; ++i) h_x[i] = float(i % 2001 - 1000) / 250.0f;

  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, stream));
  gelu_fwd<<<(n + 255) / 256, 256, 0, stream>>>(d_x, d_y, n);
  CUDA_CHECK(cudaGetLastError());

  std::vector<float> y(n);
  CUDA_CHECK(cudaMemcpy(y.data(), d_y, bytes, cudaMemcpyDeviceToHost));  // EXPECT: missing_sync
  int bad = 0;
  for (int i = 0; i < n; i += 997)
    if (std::fabs(y[i] - gelu_ref(h_x[i])) > 1e-3f) ++bad;
  printf("gelu: %d mismatches in the sample\n", bad);

  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFreeHost(h_x));
  return 0;
}
