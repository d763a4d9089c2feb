// case: split-K GEMM whose output is never cleared: the first K slice is launched with beta = 0 (C only written) and later slices accumulate into C; the kernel both reads and writes C, so the first launch may write before it reads
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define M 512
#define N 512
#define K 4096
#define KSPLIT 4
#define TILE 16

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

// C = A[:, k0:k1] * B[k0:k1, :] + beta * C
__global__ void gemm_slice(const float *A, const float *B, float *C, int k0, int k1, float beta) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = k0; k < k1; ++k) acc += A[row * K + k] * B[k * N + col];
  if (beta == 0.0f)
    C[row * N + col] = acc;
  else
    C[row * N + col] = acc + beta * C[row * N + col];
}

int main() {
  std::vector<float> hA(M * K), hB(K * N), hC(M * N);
  for (int i = 0; i < M * K; ++i) hA[i] = (float)((i % 9) - 4) * 0.125f;
  for (int i = 0; i < K * N; ++i) hB[i] = (float)((i % 5) - 2) * 0.25f;

  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * M * K));
  CUDA_CHECK(cudaMalloc(&dB, sizeof(float) * K * N));
  CUDA_CHECK(cudaMalloc(&dC, sizeof(float) * M * N));
  CUDA_CHECK(cudaMemcpy(dA, hA.data(), sizeof(float) * M * K, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, hB.data(), sizeof(float) * K * N, cudaMemcpyHostToDevice));

  dim3 block(TILE, TILE), grid(N / TILE, M / TILE);
  const int slice = K / KSPLIT;
  for (int s = 0; s < KSPLIT; ++s) {
    float beta = (s == 0) ? 0.0f : 1.0f;
    gemm_slice<<<grid, block>>>(dA, dB, dC, s * slice, (s + 1) * slice, beta);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hC.data(), dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost));

  double ref = 0.0;
  for (int k = 0; k < K; ++k) ref += (double)hA[k] * hB[k * N];
  printf("C[0][0] = %f (host reference %f)\n", hC[0], ref);

  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  return 0;
}
