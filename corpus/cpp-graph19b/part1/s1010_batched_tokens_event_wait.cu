// Batched greedy decoding (one token per sequence per step) with a graph-captured step. The
// pinned token array is both the step's input (uploaded at the start of the graph) and its
// output (downloaded at the end), so each step feeds the next. Right after the capture the host
// logs the array: capture ran nothing, so it still holds the prompts' last tokens.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CUDA_OK(call)                                                          \
  do {                                                                         \
    cudaError_t st_ = (call);                                                  \
    if (st_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(st_)); \
      std::exit(EXIT_FAILURE);                                                 \
    }                                                                          \
  } while (0)

constexpr int kBatch = 4;
constexpr int kVocab = 10000;
constexpr int kDim = 192;
constexpr int kEos = 2;

__global__ void embed_batch(const float* emb, const int* tokens, float* x) {
  int b = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < kDim) x[b * kDim + j] = emb[(size_t)tokens[b] * kDim + j];
}

__global__ void residual_mlp(const float* w, const float* x, float* y) {
  int b = blockIdx.y, r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kDim) return;
  float acc = 0.0f;
  for (int c = 0; c < kDim; ++c) acc += w[(size_t)r * kDim + c] * x[b * kDim + c];
  y[b * kDim + r] = x[b * kDim + r] + fmaxf(acc, 0.0f);
}

// One block per sequence.
__global__ void tied_head_argmax(const float* emb, const float* y, int* tokens) {
  __shared__ float sv[128];
  __shared__ int si[128];
  const int b = blockIdx.x;
  float best = -1e30f;
  int arg = 0;
  for (int v = threadIdx.x; v < kVocab; v += blockDim.x) {
    float acc = 0.0f;
    for (int c = 0; c < kDim; ++c) acc += emb[(size_t)v * kDim + c] * y[b * kDim + c];
    if (acc > best) { best = acc; arg = v; }
  }
  sv[threadIdx.x] = best;
  si[threadIdx.x] = arg;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && sv[threadIdx.x + s] > sv[threadIdx.x]) {
      sv[threadIdx.x] = sv[threadIdx.x + s];
      si[threadIdx.x] = si[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) tokens[b] = si[0];
}

int main() {
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 0.07f);
  std::vector<float> emb((size_t)kVocab * kDim), w((size_t)kDim * kDim);
  for (float& v : emb) v = nd(rng);
  for (float& v : w) v = nd(rng);

  float *d_emb, *d_w, *d_x, *d_y;
  int* d_tokens;
  CUDA_OK(cudaMalloc(&d_emb, emb.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_w, w.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_x, kBatch * kDim * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_y, kBatch * kDim * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_tokens, kBatch * sizeof(int)));
  CUDA_OK(cudaMemcpy(d_emb, emb.data(), emb.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_w, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));

  int* h_tokens = nullptr;  // pinned: input and output of every step
  CUDA_OK(cudaHostAlloc(&h_tokens, kBatch * sizeof(int), cudaHostAllocDefault));
  const int last_prompt_token[kBatch] = {318, 4410, 97, 1203};
  for (int b = 0; b < kBatch; ++b) h_tokens[b] = last_prompt_token[b];

  cudaStream_t s;
  cudaEvent_t step_done;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_OK(cudaEventCreateWithFlags(&step_done, cudaEventDisableTiming));

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  const dim3 rows(kDim / 64, kBatch);
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_OK(cudaMemcpyAsync(d_tokens, h_tokens, kBatch * sizeof(int), cudaMemcpyHostToDevice, s));
  embed_batch<<<rows, 64, 0, s>>>(d_emb, d_tokens, d_x);
  residual_mlp<<<rows, 64, 0, s>>>(d_w, d_x, d_y);
  tied_head_argmax<<<kBatch, 128, 0, s>>>(d_emb, d_y, d_tokens);
  CUDA_OK(cudaMemcpyAsync(h_tokens, d_tokens, kBatch * sizeof(int), cudaMemcpyDeviceToHost, s));
  CUDA_OK(cudaStreamEndCapture(s, &graph));
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaGraphDestroy(graph));

  // Nothing has run yet: these are still the prompts' last tokens.
  for (int b = 0; b < kBatch; ++b) std::printf("seq %d starts from token %d\n", b, h_tokens[b]);

  std::vector<std::vector<int>> out(kBatch);
  bool finished[kBatch] = {false, false, false, false};
  for (int step = 0; step < 96; ++step) {
    CUDA_OK(cudaGraphLaunch(exec, s));
    CUDA_OK(cudaEventRecord(step_done, s));
    CUDA_OK(cudaEventSynchronize(step_done));
    int live = 0;
    for (int b = 0; b < kBatch; ++b) {
      if (finished[b]) continue;
      out[b].push_back(h_tokens[b]);
      finished[b] = h_tokens[b] == kEos;
      live += finished[b] ? 0 : 1;
    }
    if (live == 0) break;
  }
  for (int b = 0; b < kBatch; ++b) std::printf("seq %d: %zu tokens\n", b, out[b].size());

  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaEventDestroy(step_done));
  CUDA_OK(cudaFreeHost(h_tokens));
  CUDA_OK(cudaFree(d_tokens));
  CUDA_OK(cudaFree(d_y));
  CUDA_OK(cudaFree(d_x));
  CUDA_OK(cudaFree(d_w));
  CUDA_OK(cudaFree(d_emb));
  CUDA_OK(cudaStreamDestroy(s));
  return 0;
}
