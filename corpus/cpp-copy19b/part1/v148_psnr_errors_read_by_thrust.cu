// case: PSNR between a reference and a decoded frame where a kernel writes per-pixel squared errors that thrust::reduce (a library call) reads before the buffer is freed
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <thrust/reduce.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>

#define FRAME_W 1920
#define FRAME_H 1080
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

__global__ void squared_diff(const unsigned char *ref, const unsigned char *dec, float *err, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float d = (float)ref[i] - (float)dec[i];
    err[i] = d * d;
  }
}

int main() {
  const int n = FRAME_W * FRAME_H;
  std::vector<unsigned char> h_ref(n), h_dec(n);
  for (int i = 0; i < n; ++i) {
    h_ref[i] = (unsigned char)((i * 13) & 0xff);
    h_dec[i] = (unsigned char)(h_ref[i] ^ (i % 7 == 0 ? 1 : 0));
  }

  unsigned char *d_ref, *d_dec;
  float *d_err;
  CUDA_CHECK(cudaMalloc(&d_ref, n));
  CUDA_CHECK(cudaMalloc(&d_dec, n));
  CUDA_CHECK(cudaMalloc(&d_err, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_ref, h_ref.data(), n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_dec, h_dec.data(), n, cudaMemcpyHostToDevice));

  squared_diff<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_ref, d_dec, d_err, n);
  CUDA_CHECK(cudaGetLastError());

  double sse = thrust::reduce(thrust::device, d_err, d_err + n, 0.0, thrust::plus<double>());
  double mse = sse / n;
  double psnr = mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : INFINITY;
  printf("MSE %.5f, PSNR %.2f dB\n", mse, psnr);

  CUDA_CHECK(cudaFree(d_ref));
  CUDA_CHECK(cudaFree(d_dec));
  CUDA_CHECK(cudaFree(d_err));
  return 0;
}
