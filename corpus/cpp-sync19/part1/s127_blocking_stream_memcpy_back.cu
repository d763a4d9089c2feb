// case: near miss: row L2-normalisation on a stream made with cudaStreamCreate (blocking); the blocking cudaMemcpy back on the legacy stream waits for it, and only then are the buffers freed
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t st_ = (call);                                                \
    if (st_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(st_));    \
      return EXIT_FAILURE;                                                   \
    }                                                                        \
  } while (0)

template <int WARPS>
__global__ void l2_normalize_rows(float* __restrict__ emb, int rows, int dim) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = blockIdx.x * WARPS + warp;
  if (row >= rows) return;
  float* v = emb + static_cast<size_t>(row) * dim;
  float s = 0.f;
  for (int k = lane; k < dim; k += 32) s += v[k] * v[k];
  for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
  const float inv = rsqrtf(fmaxf(s, 1e-12f));
  for (int k = lane; k < dim; k += 32) v[k] *= inv;
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int dim = 384;
  constexpr int kWarps = 8;
  const size_t count = static_cast<size_t>(rows) * dim;

  std::vector<float> emb(count);
  for (size_t i = 0; i < count; ++i) emb[i] = std::sin(0.123f * i) + 0.5f;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  float* d_emb = nullptr;
  CUDA_CHECK(cudaMalloc(&d_emb, count * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_emb, emb.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  l2_normalize_rows<kWarps><<<(rows + kWarps - 1) / kWarps, kWarps * 32, 0, stream>>>(d_emb, rows, dim);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(emb.data(), d_emb, count * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_emb));

  double norm0 = 0.0;
  for (int k = 0; k < dim; ++k) norm0 += double(emb[k]) * emb[k];
  std::printf("|row 0| = %.6f\n", std::sqrt(norm0));

  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
