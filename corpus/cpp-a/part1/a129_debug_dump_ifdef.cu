// case: attention-score kernel driver whose debug dumps (a host index of the device logits, a pageable async readback, an early unsynchronized read) sit under #ifdef ATTN_DEBUG_DUMP, which is not defined; the compiled path copies into pinned memory and synchronizes (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// #define ATTN_DEBUG_DUMP
#define ATTN_SCALE_BY_SQRT_DIM

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "attn: %s\n", cudaGetErrorString(e_));               \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

// scores[i, j] = scale * dot(Q[i], K[j])
__global__ void qk_scores(const float* __restrict__ Q, const float* __restrict__ K, float* __restrict__ S,
                          int seq, int dim, float scale) {
  int i = blockIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= seq || j >= seq) return;
  float acc = 0.f;
  for (int d = 0; d < dim; ++d) acc += Q[i * dim + d] * K[j * dim + d];
  S[i * seq + j] = acc * scale;
}

__global__ void fill_pattern(float* x, int n, float step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = step * (i % 17);
}

int main(int argc, char** argv) {
  const int seq = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int dim = 64;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *d_Q = nullptr, *d_K = nullptr, *d_S = nullptr, *h_S = nullptr;
  CUDA_CHECK(cudaMalloc(&d_Q, size_t(seq) * dim * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_K, size_t(seq) * dim * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_S, size_t(seq) * seq * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_S, size_t(seq) * seq * sizeof(float)));
  fill_pattern<<<(seq * dim + 255) / 256, 256, 0, s>>>(d_Q, seq * dim, 0.01f);
  fill_pattern<<<(seq * dim + 255) / 256, 256, 0, s>>>(d_K, seq * dim, 0.02f);

#ifdef ATTN_SCALE_BY_SQRT_DIM
  const float scale = 1.f / std::sqrt(float(dim));
#else
  const float scale = 1.f;
#endif
  dim3 grid((seq + 127) / 128, seq);
  qk_scores<<<grid, 128, 0, s>>>(d_Q, d_K, d_S, seq, dim, scale);

#ifdef ATTN_DEBUG_DUMP
  std::printf("debug: S[0][0] = %f\n", d_S[0]);
  std::vector<float> dump(size_t(seq) * seq);
  cudaMemcpyAsync(dump.data(), d_S, dump.size() * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaMemcpyAsync(h_S, d_S, size_t(seq) * seq * sizeof(float), cudaMemcpyDeviceToHost, s);
  std::printf("debug: early h_S[1] = %f\n", h_S[1]);
#endif

  CUDA_CHECK(cudaMemcpyAsync(h_S, d_S, size_t(seq) * seq * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  float row_max = h_S[0];
  for (int j = 1; j < seq; ++j) row_max = std::fmax(row_max, h_S[j]);
  std::printf("row 0 max score %f\n", row_max);

  cudaFreeHost(h_S);
  cudaFree(d_S);
  cudaFree(d_K);
  cudaFree(d_Q);
  cudaStreamDestroy(s);
  return 0;
}
