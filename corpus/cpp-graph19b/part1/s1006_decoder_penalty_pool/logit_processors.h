#pragma once
// Repetition penalty and greedy pick for the decoder. The "seen" bitmap is step-local scratch.
#include <cuda_runtime.h>

#include "gpu_util.h"

__global__ void mark_seen(const int* history, const int* pos, unsigned* seen_bits) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > *pos) return;
  int tok = history[t];
  atomicOr(&seen_bits[tok >> 5], 1u << (tok & 31));
}

__global__ void penalize_seen(float* logits, const unsigned* seen_bits, float penalty, int vocab) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vocab) return;
  if (seen_bits[v >> 5] & (1u << (v & 31))) {
    float l = logits[v];
    logits[v] = l > 0.0f ? l / penalty : l * penalty;
  }
}

__global__ void argmax_append(const float* logits, int vocab, const int* pos, int* history, int* token) {
  __shared__ float s_best[256];
  __shared__ int s_idx[256];
  float best = -1e30f;
  int idx = 0;
  for (int v = threadIdx.x; v < vocab; v += blockDim.x)
    if (logits[v] > best) { best = logits[v]; idx = v; }
  s_best[threadIdx.x] = best;
  s_idx[threadIdx.x] = idx;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride && s_best[threadIdx.x + stride] > s_best[threadIdx.x]) {
      s_best[threadIdx.x] = s_best[threadIdx.x + stride];
      s_idx[threadIdx.x] = s_idx[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *token = s_idx[0];
    history[*pos + 1] = s_idx[0];
  }
}

// Enqueues penalty + greedy pick; called while the decode step is being captured.
inline void enqueue_penalized_greedy(float* logits, int vocab, const int* d_pos, int* d_history,
                                     int max_tokens, int* d_token, float penalty, cudaStream_t s) {
  const size_t words = (vocab + 31) / 32;
  Scratch seen = scratch_acquire(words * sizeof(unsigned), s);
  unsigned* bits = static_cast<unsigned*>(seen.ptr);
  GPU_TRY(cudaMemsetAsync(bits, 0, words * sizeof(unsigned), s));
  mark_seen<<<(max_tokens + 127) / 128, 128, 0, s>>>(d_history, d_pos, bits);
  penalize_seen<<<(vocab + 255) / 256, 256, 0, s>>>(logits, bits, penalty, vocab);
  scratch_release(seen, s);
  argmax_append<<<1, 256, 0, s>>>(logits, vocab, d_pos, d_history, d_token);
}
