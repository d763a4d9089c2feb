// Ranking service for a recommender: a two-tower dot-product scorer replayed as a CUDA graph per
// batch bucket. When the bucket changes, rebuild() waits for the stream, destroys the graph,
// reallocates the activation buffers for the new bucket and only then captures the new graph, so
// every launch names buffers that are alive.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CK(call)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "ranker: %s -> %s\n", #call, cudaGetErrorString(e_));     \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

constexpr int kFeat = 128;
constexpr int kEmb = 64;
constexpr int kItems = 4096;
constexpr int kMaxBatch = 128;

__global__ void user_tower(const float* w, const float* feats, float* user_emb, int batch) {
  int u = blockIdx.y, e = threadIdx.x;
  if (u >= batch || e >= kEmb) return;
  float acc = 0.0f;
  for (int f = 0; f < kFeat; ++f) acc += w[e * kFeat + f] * feats[u * kFeat + f];
  user_emb[u * kEmb + e] = tanhf(acc);
}

__global__ void score_items(const float* user_emb, const float* item_emb, float* scores, int batch) {
  int u = blockIdx.y, it = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= batch || it >= kItems) return;
  float acc = 0.0f;
  for (int e = 0; e < kEmb; ++e) acc += user_emb[u * kEmb + e] * item_emb[(size_t)it * kEmb + e];
  scores[(size_t)u * kItems + it] = acc;
}

// One best item per user, one block per user.
__global__ void best_item(const float* scores, int* best, int batch) {
  __shared__ float sv[128];
  __shared__ int si[128];
  int u = blockIdx.x;
  float b = -1e30f;
  int arg = 0;
  for (int it = threadIdx.x; it < kItems; it += blockDim.x) {
    float v = scores[(size_t)u * kItems + it];
    if (v > b) { b = v; arg = it; }
  }
  sv[threadIdx.x] = b;
  si[threadIdx.x] = arg;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && sv[threadIdx.x + s] > sv[threadIdx.x]) {
      sv[threadIdx.x] = sv[threadIdx.x + s];
      si[threadIdx.x] = si[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) best[u] = si[0];
}

class Ranker {
 public:
  Ranker(cudaStream_t s, const float* d_tower, const float* d_items, float* h_feats, int* h_best)
      : s_(s), tower_(d_tower), items_(d_items), h_feats_(h_feats), h_best_(h_best) {}
  ~Ranker() { teardown(); }

  void rebuild(int batch) {
    teardown();
    batch_ = batch;
    CK(cudaMalloc(&d_feats_, sizeof(float) * batch * kFeat));
    CK(cudaMalloc(&d_user_, sizeof(float) * batch * kEmb));
    CK(cudaMalloc(&d_scores_, sizeof(float) * batch * kItems));
    CK(cudaMalloc(&d_best_, sizeof(int) * batch));

    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s_, cudaStreamCaptureModeGlobal));
    CK(cudaMemcpyAsync(d_feats_, h_feats_, sizeof(float) * batch * kFeat, cudaMemcpyHostToDevice, s_));
    user_tower<<<dim3(1, batch), kEmb, 0, s_>>>(tower_, d_feats_, d_user_, batch);
    score_items<<<dim3((kItems + 255) / 256, batch), 256, 0, s_>>>(d_user_, items_, d_scores_, batch);
    best_item<<<batch, 128, 0, s_>>>(d_scores_, d_best_, batch);
    CK(cudaMemcpyAsync(h_best_, d_best_, sizeof(int) * batch, cudaMemcpyDeviceToHost, s_));
    CK(cudaStreamEndCapture(s_, &g));
    CK(cudaGraphInstantiate(&exec_, g, 0));
    CK(cudaGraphDestroy(g));
  }

  void run() {
    CK(cudaGraphLaunch(exec_, s_));
    CK(cudaStreamSynchronize(s_));
  }
  int batch() const { return batch_; }

 private:
  void teardown() {
    if (!exec_) return;  // nothing built yet
    CK(cudaStreamSynchronize(s_));
    CK(cudaGraphExecDestroy(exec_));
    exec_ = nullptr;
    CK(cudaFree(d_best_));
    CK(cudaFree(d_scores_));
    CK(cudaFree(d_user_));
    CK(cudaFree(d_feats_));
  }

  cudaStream_t s_;
  const float* tower_;
  const float* items_;
  float* h_feats_;
  int* h_best_;
  float *d_feats_ = nullptr, *d_user_ = nullptr, *d_scores_ = nullptr;
  int* d_best_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  int batch_ = 0;
};

static int bucket_for(int pending) { return pending > 64 ? 128 : (pending > 16 ? 64 : 16); }

int main() {
  std::mt19937 rng(23);
  std::normal_distribution<float> nd(0.0f, 0.1f);
  std::vector<float> tower((size_t)kEmb * kFeat), items((size_t)kItems * kEmb);
  for (float& v : tower) v = nd(rng);
  for (float& v : items) v = nd(rng);
  float *d_tower, *d_items;
  CK(cudaMalloc(&d_tower, tower.size() * sizeof(float)));
  CK(cudaMalloc(&d_items, items.size() * sizeof(float)));
  CK(cudaMemcpy(d_tower, tower.data(), tower.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_items, items.data(), items.size() * sizeof(float), cudaMemcpyHostToDevice));

  float* h_feats;
  int* h_best;
  CK(cudaMallocHost(&h_feats, sizeof(float) * kMaxBatch * kFeat));
  CK(cudaMallocHost(&h_best, sizeof(int) * kMaxBatch));

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  long long picks = 0;
  {
    Ranker ranker(s, d_tower, d_items, h_feats, h_best);
    const int pending_per_tick[] = {10, 12, 40, 55, 120, 128, 90, 30, 8};
    for (int pending : pending_per_tick) {
      const int bucket = bucket_for(pending);
      if (bucket != ranker.batch()) ranker.rebuild(bucket);
      for (int i = 0; i < bucket * kFeat; ++i) h_feats[i] = (i < pending * kFeat) ? 0.01f * (i % 97) : 0.0f;
      ranker.run();
      for (int u = 0; u < pending; ++u) picks += h_best[u];
    }
  }  // ~Ranker waits, destroys the graph and frees the activations
  std::printf("sum of picked item ids: %lld\n", picks);

  CK(cudaFreeHost(h_best));
  CK(cudaFreeHost(h_feats));
  CK(cudaFree(d_items));
  CK(cudaFree(d_tower));
  CK(cudaStreamDestroy(s));
  return 0;
}
