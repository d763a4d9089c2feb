// case: tiled SGEMM C = A*B with non-square matrices whose B upload uses A's M*K element count, larger than the K*N buffer allocated for B (and than the host B)
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define M 1024
#define K 512
#define N 256
#define TILE 16

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                    \
              cudaGetErrorString(err_));                                    \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

__global__ void sgemm_tiled(const float *A, const float *B, float *C, int m, int n, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    As[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? A[row * k + t + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k) ? B[(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}

int main() {
  std::vector<float> hA(M * K), hB(K * N), hC(M * N);
  for (int i = 0; i < M * K; ++i) hA[i] = (float)(i % 17) * 0.01f;
  for (int i = 0; i < K * N; ++i) hB[i] = (float)(i % 13) * 0.02f;

  float *dA, *dB, *dC;
  CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * M * K));
  CUDA_CHECK(cudaMalloc(&dB, sizeof(float) * K * N));
  CUDA_CHECK(cudaMalloc(&dC, sizeof(float) * M * N));

  CUDA_CHECK(cudaMemcpy(dA, hA.data(), sizeof(float) * M * K, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, hB.data(), sizeof(float) * M * K, cudaMemcpyHostToDevice)); // EXPECT: copy_out_of_bounds

  dim3 block(TILE, TILE);
  dim3 grid(N / TILE, M / TILE);
  sgemm_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hC.data(), dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost));

  double checksum = 0.0;
  for (float v : hC) checksum += v;
  printf("checksum = %.4f\n", checksum);

  CUDA_CHECK(cudaFree(dA));
  CUDA_CHECK(cudaFree(dB));
  CUDA_CHECK(cudaFree(dC));
  return 0;
}
