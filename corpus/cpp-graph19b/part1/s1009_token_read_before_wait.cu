// Streaming text generation with a graph-captured decode step. Each step's latency is measured
// with a pair of events; the end event is waited for once the token has been handed to the
// streaming callback, so the host reads the pinned token while the replay may still run.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#define CUDA_OK(call)                                                                   \
  do {                                                                                  \
    cudaError_t st_ = (call);                                                           \
    if (st_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(st_));          \
      std::exit(EXIT_FAILURE);                                                          \
    }                                                                                   \
  } while (0)

constexpr int kVocab = 12000;
constexpr int kDim = 256;
constexpr int kEos = 2;

__global__ void embed_step(const float* emb, const int* token, const int* step, float* x) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < kDim) x[j] = emb[(size_t)(*token) * kDim + j] + 1e-3f * (*step);
}

__global__ void gated_mlp(const float* w_gate, const float* w_up, const float* x, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kDim) return;
  float g = 0.0f, u = 0.0f;
  for (int c = 0; c < kDim; ++c) {
    g += w_gate[(size_t)r * kDim + c] * x[c];
    u += w_up[(size_t)r * kDim + c] * x[c];
  }
  y[r] = x[r] + u * g / (1.0f + __expf(-g));
}

__global__ void greedy_head(const float* emb, const float* y, int* token) {
  __shared__ float sv[256];
  __shared__ int si[256];
  float best = -1e30f;
  int arg = 0;
  for (int v = threadIdx.x; v < kVocab; v += blockDim.x) {
    float acc = 0.0f;
    for (int c = 0; c < kDim; ++c) acc += emb[(size_t)v * kDim + c] * y[c];
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
  if (threadIdx.x == 0) *token = si[0];
}

class Generator {
 public:
  Generator(const std::vector<float>& emb, const std::vector<float>& gate, const std::vector<float>& up) {
    CUDA_OK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreate(&t0_));
    CUDA_OK(cudaEventCreate(&t1_));
    CUDA_OK(cudaMalloc(&d_emb_, emb.size() * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_gate_, gate.size() * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_up_, up.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(d_emb_, emb.data(), emb.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_gate_, gate.data(), gate.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_up_, up.data(), up.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&d_x_, kDim * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_y_, kDim * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_token_, sizeof(int)));
    CUDA_OK(cudaMalloc(&d_step_, sizeof(int)));
    CUDA_OK(cudaMallocHost(&h_step_, sizeof(int)));
    CUDA_OK(cudaMallocHost(&h_token_, sizeof(int)));

    cudaGraph_t g;
    CUDA_OK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    CUDA_OK(cudaMemcpyAsync(d_step_, h_step_, sizeof(int), cudaMemcpyHostToDevice, stream_));
    embed_step<<<kDim / 64, 64, 0, stream_>>>(d_emb_, d_token_, d_step_, d_x_);
    gated_mlp<<<kDim / 64, 64, 0, stream_>>>(d_gate_, d_up_, d_x_, d_y_);
    greedy_head<<<1, 256, 0, stream_>>>(d_emb_, d_y_, d_token_);
    CUDA_OK(cudaMemcpyAsync(h_token_, d_token_, sizeof(int), cudaMemcpyDeviceToHost, stream_));
    CUDA_OK(cudaStreamEndCapture(stream_, &g));
    CUDA_OK(cudaGraphInstantiate(&exec_, g, 0));
    CUDA_OK(cudaGraphDestroy(g));
  }

  ~Generator() {
    CUDA_OK(cudaStreamSynchronize(stream_));
    CUDA_OK(cudaGraphExecDestroy(exec_));
    CUDA_OK(cudaFreeHost(h_token_));
    CUDA_OK(cudaFreeHost(h_step_));
    CUDA_OK(cudaFree(d_step_));
    CUDA_OK(cudaFree(d_token_));
    CUDA_OK(cudaFree(d_y_));
    CUDA_OK(cudaFree(d_x_));
    CUDA_OK(cudaFree(d_up_));
    CUDA_OK(cudaFree(d_gate_));
    CUDA_OK(cudaFree(d_emb_));
    CUDA_OK(cudaEventDestroy(t1_));
    CUDA_OK(cudaEventDestroy(t0_));
    CUDA_OK(cudaStreamDestroy(stream_));
  }

  void start(int first_token) {
    CUDA_OK(cudaMemcpy(d_token_, &first_token, sizeof(int), cudaMemcpyHostToDevice));
  }

  // Runs one decode step and streams its token; returns the step's GPU time in ms.
  float step(int index, const std::function<void(int)>& on_token, bool* done) {
    h_step_[0] = index;
    CUDA_OK(cudaEventRecord(t0_, stream_));
    CUDA_OK(cudaGraphLaunch(exec_, stream_));
    CUDA_OK(cudaEventRecord(t1_, stream_));
    const int token = h_token_[0];  // EXPECT: missing_sync
    on_token(token);
    *done = token == kEos;
    CUDA_OK(cudaEventSynchronize(t1_));
    float ms = 0.0f;
    CUDA_OK(cudaEventElapsedTime(&ms, t0_, t1_));
    return ms;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t t0_ = nullptr, t1_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  float *d_emb_ = nullptr, *d_gate_ = nullptr, *d_up_ = nullptr, *d_x_ = nullptr, *d_y_ = nullptr;
  int *d_token_ = nullptr, *d_step_ = nullptr;
  int *h_step_ = nullptr, *h_token_ = nullptr;
};

int main() {
  std::mt19937 rng(99);
  std::normal_distribution<float> nd(0.0f, 0.06f);
  std::vector<float> emb((size_t)kVocab * kDim), gate((size_t)kDim * kDim), up((size_t)kDim * kDim);
  for (float& v : emb) v = nd(rng);
  for (float& v : gate) v = nd(rng);
  for (float& v : up) v = nd(rng);

  Generator gen(emb, gate, up);
  gen.start(1);
  std::vector<int> text;
  float total_ms = 0.0f;
  bool done = false;
  for (int i = 0; i < 128 && !done; ++i) {
    total_ms += gen.step(i, [&](int tok) { text.push_back(tok); }, &done);
  }
  std::printf("%zu tokens, %.3f ms of GPU time per token\n", text.size(), total_ms / (text.empty() ? 1 : text.size()));
  return 0;
}
