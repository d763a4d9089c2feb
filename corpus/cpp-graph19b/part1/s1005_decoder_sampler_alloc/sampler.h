#pragma once
// Top-k sampling for the decoder: each block keeps the k best logits of its slice of the
// vocabulary, then one block merges the candidates, applies the temperature and draws a token.
#include <cuda_runtime.h>

#include "cuda_check.h"

constexpr int kSampleBlock = 256;
constexpr int kMaxTopK = 16;

struct TopKWorkspace {
  void* base = nullptr;   // one allocation, carved into the two candidate arrays
  float* scores = nullptr;
  int* indices = nullptr;
  int blocks = 0;
  int k = 0;
};

__global__ void block_topk(const float* logits, int vocab, int k, float* scores, int* indices) {
  __shared__ float s_val[kSampleBlock];
  int v = blockIdx.x * kSampleBlock + threadIdx.x;
  s_val[threadIdx.x] = v < vocab ? logits[v] : -1e30f;
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int j = 0; j < k; ++j) {
    int best = 0;
    for (int t = 1; t < kSampleBlock; ++t)
      if (s_val[t] > s_val[best]) best = t;
    scores[blockIdx.x * k + j] = s_val[best];
    indices[blockIdx.x * k + j] = blockIdx.x * kSampleBlock + best;
    s_val[best] = -1e30f;
  }
}

__device__ inline unsigned hash_u32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

__global__ void merge_and_sample(const float* scores, const int* indices, int blocks, int k,
                                 float inv_temperature, unsigned seed, const int* pos, int* token) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  float best_s[kMaxTopK];
  int best_i[kMaxTopK];
  for (int j = 0; j < k; ++j) { best_s[j] = -1e30f; best_i[j] = 0; }
  for (int c = 0; c < blocks * k; ++c) {
    int worst = 0;
    for (int j = 1; j < k; ++j)
      if (best_s[j] < best_s[worst]) worst = j;
    if (scores[c] > best_s[worst]) { best_s[worst] = scores[c]; best_i[worst] = indices[c]; }
  }
  float top = best_s[0];
  for (int j = 1; j < k; ++j) top = fmaxf(top, best_s[j]);
  float total = 0.0f;
  for (int j = 0; j < k; ++j) { best_s[j] = __expf((best_s[j] - top) * inv_temperature); total += best_s[j]; }
  float u = (hash_u32(seed ^ (unsigned)(*pos * 2654435761u)) & 0xFFFFFF) / 16777216.0f * total;
  int pick = k - 1;
  for (int j = 0; j < k; ++j) {
    u -= best_s[j];
    if (u <= 0.0f) { pick = j; break; }
  }
  *token = best_i[pick];
}

// Allocates the candidate arrays for a vocabulary of `vocab` tokens.
inline TopKWorkspace make_topk_workspace(int vocab, int k) {
  TopKWorkspace ws;
  ws.k = k;
  ws.blocks = (vocab + kSampleBlock - 1) / kSampleBlock;
  const size_t n = static_cast<size_t>(ws.blocks) * k;
  CUDA_CHECK(cudaMalloc(&ws.base, n * (sizeof(float) + sizeof(int))));  // EXPECT: uncapturable_call
  ws.scores = static_cast<float*>(ws.base);
  ws.indices = reinterpret_cast<int*>(ws.scores + n);
  return ws;
}

inline void release_topk_workspace(TopKWorkspace& ws) {
  CUDA_CHECK(cudaFree(ws.base));
  ws = TopKWorkspace{};
}

inline void enqueue_sample(const TopKWorkspace& ws, const float* logits, int vocab, float temperature,
                           unsigned seed, const int* d_pos, int* d_token, cudaStream_t s) {
  block_topk<<<ws.blocks, kSampleBlock, 0, s>>>(logits, vocab, ws.k, ws.scores, ws.indices);
  merge_and_sample<<<1, 32, 0, s>>>(ws.scores, ws.indices, ws.blocks, ws.k, 1.0f / temperature, seed,
                                    d_pos, d_token);
}
