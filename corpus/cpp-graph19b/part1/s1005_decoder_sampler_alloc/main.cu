// Toy-sized autoregressive decoder served with CUDA graphs: the whole per-token step (position
// upload, embedding, the layers, the output projection, top-k sampling and the download of the
// sampled token) is captured once and replayed for every generated token.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "sampler.h"

constexpr int kVocab = 32000;
constexpr int kHidden = 512;
constexpr int kLayers = 4;
constexpr int kTopK = 8;
constexpr int kBosToken = 1;
constexpr int kEosToken = 2;
constexpr int kMaxNewTokens = 64;

__global__ void embed(const float* table, const int* token, const int* pos, float* out, int hidden) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= hidden) return;
  float angle = *pos / powf(10000.0f, (2.0f * (j / 2)) / hidden);
  out[j] = table[(size_t)(*token) * hidden + j] + ((j & 1) ? cosf(angle) : sinf(angle));
}

__global__ void dense_tanh(const float* w, const float* x, float* y, int hidden) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= hidden) return;
  float acc = 0.0f;
  for (int c = 0; c < hidden; ++c) acc += w[(size_t)r * hidden + c] * x[c];
  y[r] = x[r] + tanhf(acc);
}

__global__ void project_vocab(const float* w_out, const float* x, float* logits, int vocab, int hidden) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vocab) return;
  float acc = 0.0f;
  for (int c = 0; c < hidden; ++c) acc += w_out[(size_t)v * hidden + c] * x[c];
  logits[v] = acc;
}

static float* upload_random(size_t count, float scale, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> host(count);
  for (float& x : host) x = dist(rng);
  float* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, count * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

int main() {
  std::mt19937 rng(1234);
  float* d_embed = upload_random((size_t)kVocab * kHidden, 0.02f, rng);
  float* d_layers = upload_random((size_t)kLayers * kHidden * kHidden, 1.0f / std::sqrt((float)kHidden), rng);
  float* d_wout = upload_random((size_t)kVocab * kHidden, 0.02f, rng);

  float *d_h0 = nullptr, *d_h1 = nullptr, *d_logits = nullptr;
  int *d_token = nullptr, *d_pos = nullptr;
  CUDA_CHECK(cudaMalloc(&d_h0, kHidden * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_h1, kHidden * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_logits, kVocab * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_token, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_pos, sizeof(int)));
  const int bos = kBosToken;
  CUDA_CHECK(cudaMemcpy(d_token, &bos, sizeof(int), cudaMemcpyHostToDevice));

  int *h_pos = nullptr, *h_token = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_pos, sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&h_token, sizeof(int)));
  h_pos[0] = 0;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const int tpb = 128;
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMemcpyAsync(d_pos, h_pos, sizeof(int), cudaMemcpyHostToDevice, stream));
  embed<<<(kHidden + tpb - 1) / tpb, tpb, 0, stream>>>(d_embed, d_token, d_pos, d_h0, kHidden);
  float* cur = d_h0;
  float* next = d_h1;
  for (int l = 0; l < kLayers; ++l) {
    dense_tanh<<<(kHidden + tpb - 1) / tpb, tpb, 0, stream>>>(d_layers + (size_t)l * kHidden * kHidden, cur,
                                                              next, kHidden);
    std::swap(cur, next);
  }
  project_vocab<<<(kVocab + tpb - 1) / tpb, tpb, 0, stream>>>(d_wout, cur, d_logits, kVocab, kHidden);
  TopKWorkspace ws = make_topk_workspace(kVocab, kTopK);
  enqueue_sample(ws, d_logits, kVocab, 0.8f, 42u, d_pos, d_token, stream);
  CUDA_CHECK(cudaMemcpyAsync(h_token, d_token, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));

  cudaGraphExec_t step = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&step, graph, 0));
  CUDA_CHECK(cudaGraphDestroy(graph));

  std::vector<int> generated;
  for (int t = 0; t < kMaxNewTokens; ++t) {
    h_pos[0] = t;
    CUDA_CHECK(cudaGraphLaunch(step, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    generated.push_back(h_token[0]);
    if (h_token[0] == kEosToken) break;
  }
  std::printf("generated %zu tokens, first %d\n", generated.size(), generated.empty() ? -1 : generated[0]);

  CUDA_CHECK(cudaGraphExecDestroy(step));
  release_topk_workspace(ws);
  CUDA_CHECK(cudaFreeHost(h_token));
  CUDA_CHECK(cudaFreeHost(h_pos));
  CUDA_CHECK(cudaFree(d_pos));
  CUDA_CHECK(cudaFree(d_token));
  CUDA_CHECK(cudaFree(d_logits));
  CUDA_CHECK(cudaFree(d_h1));
  CUDA_CHECK(cudaFree(d_h0));
  CUDA_CHECK(cudaFree(d_wout));
  CUDA_CHECK(cudaFree(d_layers));
  CUDA_CHECK(cudaFree(d_embed));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
