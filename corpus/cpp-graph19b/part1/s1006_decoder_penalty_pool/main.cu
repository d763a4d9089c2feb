// Greedy decoder with a repetition penalty, replayed as one CUDA graph per generated token.
// The penalty's bitmap is taken from the stream-ordered pool inside the captured step.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "gpu_util.h"
#include "logit_processors.h"

constexpr int kVocab = 16384;
constexpr int kHidden = 384;
constexpr int kMaxTokens = 256;
constexpr int kPromptLen = 5;

__global__ void embed_token(const float* table, const int* history, const int* pos, float* h, int hidden) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < hidden) h[j] = table[(size_t)history[*pos] * hidden + j];
}

__global__ void mix(const float* w, const float* x, float* y, int hidden) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= hidden) return;
  float acc = 0.0f;
  for (int c = 0; c < hidden; ++c) acc += w[(size_t)r * hidden + c] * x[c];
  y[r] = tanhf(acc);
}

__global__ void lm_head(const float* w, const float* x, float* logits, int vocab, int hidden) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vocab) return;
  float acc = 0.0f;
  for (int c = 0; c < hidden; ++c) acc += w[(size_t)v * hidden + c] * x[c];
  logits[v] = acc;
}

int main() {
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.0f, 0.05f);
  std::vector<float> host_table((size_t)kVocab * kHidden), host_mix((size_t)kHidden * kHidden);
  for (float& x : host_table) x = nd(rng);
  for (float& x : host_mix) x = nd(rng);

  float *d_table, *d_mix, *d_h, *d_h2, *d_logits;
  int *d_history, *d_pos, *d_token;
  GPU_TRY(cudaMalloc(&d_table, host_table.size() * sizeof(float)));
  GPU_TRY(cudaMalloc(&d_mix, host_mix.size() * sizeof(float)));
  GPU_TRY(cudaMalloc(&d_h, kHidden * sizeof(float)));
  GPU_TRY(cudaMalloc(&d_h2, kHidden * sizeof(float)));
  GPU_TRY(cudaMalloc(&d_logits, kVocab * sizeof(float)));
  GPU_TRY(cudaMalloc(&d_history, kMaxTokens * sizeof(int)));
  GPU_TRY(cudaMalloc(&d_pos, sizeof(int)));
  GPU_TRY(cudaMalloc(&d_token, sizeof(int)));
  GPU_TRY(cudaMemcpy(d_table, host_table.data(), host_table.size() * sizeof(float), cudaMemcpyHostToDevice));
  GPU_TRY(cudaMemcpy(d_mix, host_mix.data(), host_mix.size() * sizeof(float), cudaMemcpyHostToDevice));

  const int prompt[kPromptLen] = {1, 812, 77, 4051, 9};
  GPU_TRY(cudaMemset(d_history, 0, kMaxTokens * sizeof(int)));
  GPU_TRY(cudaMemcpy(d_history, prompt, sizeof(prompt), cudaMemcpyHostToDevice));

  int *h_pos = nullptr, *h_token = nullptr;
  GPU_TRY(cudaMallocHost(&h_pos, sizeof(int)));
  GPU_TRY(cudaMallocHost(&h_token, sizeof(int)));

  cudaStream_t s;
  GPU_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  cudaGraph_t graph;
  GPU_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  GPU_TRY(cudaMemcpyAsync(d_pos, h_pos, sizeof(int), cudaMemcpyHostToDevice, s));
  embed_token<<<(kHidden + 127) / 128, 128, 0, s>>>(d_table, d_history, d_pos, d_h, kHidden);
  mix<<<(kHidden + 127) / 128, 128, 0, s>>>(d_mix, d_h, d_h2, kHidden);
  lm_head<<<(kVocab + 255) / 256, 256, 0, s>>>(d_table, d_h2, d_logits, kVocab, kHidden);
  enqueue_penalized_greedy(d_logits, kVocab, d_pos, d_history, kMaxTokens, d_token, 1.3f, s);
  GPU_TRY(cudaMemcpyAsync(h_token, d_token, sizeof(int), cudaMemcpyDeviceToHost, s));
  GPU_TRY(cudaStreamEndCapture(s, &graph));

  cudaGraphExec_t exec;
  GPU_TRY(cudaGraphInstantiate(&exec, graph, 0));
  GPU_TRY(cudaGraphDestroy(graph));
  GPU_TRY(cudaGraphUpload(exec, s));

  std::vector<int> out;
  for (int pos = kPromptLen - 1; pos + 1 < kMaxTokens; ++pos) {
    h_pos[0] = pos;
    GPU_TRY(cudaGraphLaunch(exec, s));
    stream_wait(s);
    out.push_back(h_token[0]);
    if (h_token[0] == 2) break;  // </s>
  }
  std::printf("decoded %zu tokens\n", out.size());

  GPU_TRY(cudaGraphExecDestroy(exec));
  GPU_TRY(cudaFreeHost(h_token));
  GPU_TRY(cudaFreeHost(h_pos));
  GPU_TRY(cudaFree(d_token));
  GPU_TRY(cudaFree(d_pos));
  GPU_TRY(cudaFree(d_history));
  GPU_TRY(cudaFree(d_logits));
  GPU_TRY(cudaFree(d_h2));
  GPU_TRY(cudaFree(d_h));
  GPU_TRY(cudaFree(d_mix));
  GPU_TRY(cudaFree(d_table));
  GPU_TRY(cudaStreamDestroy(s));
  return 0;
}
