// case: tiled matmul timed with events; the code synchronizes the start event (recorded before the kernel) instead of stop, then cudaFrees matrix A while the kernel may still read it
// expect: relies_on_implicit_sync=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                                \
  do {                                                                          \
    cudaError_t e = (x);                                                        \
    if (e != cudaSuccess) {                                                     \
      std::fprintf(stderr, "CUDA failure %s at line %d\n", cudaGetErrorString(e), __LINE__); \
      return EXIT_FAILURE;                                                      \
    }                                                                           \
  } while (0)

constexpr int TILE = 16;

__global__ void matmul_tiled(const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    const int ac = t * TILE + threadIdx.x;
    const int br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = acc;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  const size_t bytes = size_t(n) * n * sizeof(float);

  std::vector<float> hA(size_t(n) * n), hB(size_t(n) * n), hC(size_t(n) * n);
  for (size_t i = 0; i < hA.size(); ++i) {
    hA[i] = float(i % 13) * 0.1f;
    hB[i] = float(i % 7) * 0.2f;
  }

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
  CHECK(cudaMalloc(&dA, bytes));
  CHECK(cudaMalloc(&dB, bytes));
  CHECK(cudaMalloc(&dC, bytes));
  CHECK(cudaMemcpy(dA, hA.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, hB.data(), bytes, cudaMemcpyHostToDevice));

  const dim3 block(TILE, TILE);
  const dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  CHECK(cudaEventRecord(start, stream));
  matmul_tiled<<<grid, block, 0, stream>>>(dA, dB, dC, n);
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaEventSynchronize(start));

  // Inputs are no longer needed once the product is computed.
  CHECK(cudaFree(dA));  // EXPECT: relies_on_implicit_sync
  CHECK(cudaFree(dB));

  CHECK(cudaEventSynchronize(stop));
  float ms = 0.f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaMemcpy(hC.data(), dC, bytes, cudaMemcpyDeviceToHost));
  std::printf("%d x %d matmul: %.3f ms, C[0] = %f, %.1f GFLOP/s\n", n, n, ms, hC[0],
              2.0 * n * n * n / (ms * 1e6));

  CHECK(cudaFree(dC));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
