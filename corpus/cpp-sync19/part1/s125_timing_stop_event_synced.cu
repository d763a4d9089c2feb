// case: near miss: kernel timed with events on a blocking stream; cudaEventSynchronize(stop), with stop recorded after the kernel, comes before the inputs are freed
// expect: none
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

// c = A * b for a dense row-major n x n matrix; one warp per row.
__global__ void gemv_warp(const float* __restrict__ A, const float* __restrict__ b,
                          float* __restrict__ c, int n) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= n) return;
  float acc = 0.f;
  for (int k = lane; k < n; k += 32) acc += A[size_t(row) * n + k] * b[k];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) c[row] = acc;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
  std::vector<float> hA(size_t(n) * n), hb(n), hc(n);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = float((i * 7) % 11) * 0.01f;
  for (int i = 0; i < n; ++i) hb[i] = 1.f;

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  float *dA = nullptr, *db = nullptr, *dc = nullptr;
  CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  CHECK(cudaEventRecord(start, stream));
  gemv_warp<<<(n * 32 + 255) / 256, 256, 0, stream>>>(dA, db, dc, n);
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaEventSynchronize(stop));

  CHECK(cudaFree(dA));
  CHECK(cudaFree(db));

  float ms = 0.f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaMemcpy(hc.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("gemv %d: %.3f ms, %.1f GB/s, c[0] = %.3f\n", n, ms,
              double(n) * n * sizeof(float) / (ms * 1e6), hc[0]);

  CHECK(cudaFree(dc));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
