// Single-sequence LLM decode loop with CUDA graphs. The decode step (embedding, QKV projection
// that appends to the KV cache, attention over the cache, LM head, greedy pick) is captured once
// at start-up, against the cache the engine was built with. When a request arrives, the engine
// resizes the cache to the request's token budget; the graph still names the old cache.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CK(x)                                                                      \
  do {                                                                             \
    cudaError_t _e = (x);                                                          \
    if (_e != cudaSuccess) {                                                       \
      std::fprintf(stderr, "cuda: %s (%s:%d)\n", cudaGetErrorString(_e), __FILE__, __LINE__); \
      std::abort();                                                                \
    }                                                                              \
  } while (0)

constexpr int kHeads = 8;
constexpr int kHeadDim = 64;
constexpr int kHidden = kHeads * kHeadDim;
constexpr int kVocab = 8192;
constexpr int kEos = 2;

__global__ void embed(const float* table, const int* token, float* x) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < kHidden) x[j] = table[(size_t)(*token) * kHidden + j];
}

// q = Wq x; the key and value of this position are appended to the cache.
__global__ void qkv_append(const float* w_qkv, const float* x, const int* pos, float* q, float* k_cache,
                           float* v_cache) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= 3 * kHidden) return;
  float acc = 0.0f;
  for (int c = 0; c < kHidden; ++c) acc += w_qkv[(size_t)r * kHidden + c] * x[c];
  int p = *pos;
  if (r < kHidden) q[r] = acc;
  else if (r < 2 * kHidden) k_cache[(size_t)p * kHidden + (r - kHidden)] = acc;
  else v_cache[(size_t)p * kHidden + (r - 2 * kHidden)] = acc;
}

// One block per head, one thread per head dimension; softmax over positions 0..pos.
__global__ void attend(const float* q, const float* k_cache, const float* v_cache, const int* pos, float* out) {
  const int h = blockIdx.x, d = threadIdx.x;
  const int len = *pos + 1;
  const float scale = rsqrtf((float)kHeadDim);
  float m = -1e30f, denom = 0.0f, acc = 0.0f;
  for (int t = 0; t < len; ++t) {
    float s = 0.0f;
    for (int e = 0; e < kHeadDim; ++e)
      s += q[h * kHeadDim + e] * k_cache[(size_t)t * kHidden + h * kHeadDim + e];
    s *= scale;
    float m_new = fmaxf(m, s);
    float corr = __expf(m - m_new), w = __expf(s - m_new);
    denom = denom * corr + w;
    acc = acc * corr + w * v_cache[(size_t)t * kHidden + h * kHeadDim + d];
    m = m_new;
  }
  out[h * kHeadDim + d] = acc / denom;
}

__global__ void lm_head_argmax(const float* w_out, const float* a, int* token) {
  __shared__ float best[256];
  __shared__ int best_id[256];
  float b = -1e30f;
  int id = 0;
  for (int v = threadIdx.x; v < kVocab; v += blockDim.x) {
    float acc = 0.0f;
    for (int c = 0; c < kHidden; ++c) acc += w_out[(size_t)v * kHidden + c] * a[c];
    if (acc > b) { b = acc; id = v; }
  }
  best[threadIdx.x] = b;
  best_id[threadIdx.x] = id;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && best[threadIdx.x + s] > best[threadIdx.x]) {
      best[threadIdx.x] = best[threadIdx.x + s];
      best_id[threadIdx.x] = best_id[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *token = best_id[0];
}

// Prefill writes the prompt's keys and values (a stand-in for the batched prefill pass).
__global__ void prefill(const float* table, const int* prompt, int len, float* k_cache, float* v_cache) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= len * kHidden) return;
  int t = i / kHidden, j = i % kHidden;
  float e = table[(size_t)prompt[t] * kHidden + j];
  k_cache[i] = e;
  v_cache[i] = 0.5f * e;
}

class KvCache {
 public:
  explicit KvCache(int max_tokens) { allocate(max_tokens); }
  ~KvCache() { release(); }
  KvCache(const KvCache&) = delete;
  KvCache& operator=(const KvCache&) = delete;

  // Drops what is cached and sizes the cache for a new request.
  void reset(int max_tokens) {
    release();
    allocate(max_tokens);
  }

  float* keys() const { return k_; }
  float* values() const { return v_; }
  int capacity() const { return capacity_; }

 private:
  void allocate(int max_tokens) {
    capacity_ = max_tokens;
    CK(cudaMalloc(&k_, sizeof(float) * kHidden * max_tokens));
    CK(cudaMalloc(&v_, sizeof(float) * kHidden * max_tokens));
  }
  void release() {
    CK(cudaFree(k_));
    CK(cudaFree(v_));
    k_ = v_ = nullptr;
    capacity_ = 0;
  }

  float* k_ = nullptr;
  float* v_ = nullptr;
  int capacity_ = 0;
};

static float* upload(const std::vector<float>& h) {
  float* d = nullptr;
  CK(cudaMalloc(&d, h.size() * sizeof(float)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

int main() {
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.0f, 0.04f);
  std::vector<float> table((size_t)kVocab * kHidden), w_qkv((size_t)3 * kHidden * kHidden);
  for (float& v : table) v = nd(rng);
  for (float& v : w_qkv) v = nd(rng);
  float* d_table = upload(table);
  float* d_wqkv = upload(w_qkv);

  float *d_x, *d_q, *d_attn;
  int *d_token, *d_pos, *d_prompt;
  CK(cudaMalloc(&d_x, kHidden * sizeof(float)));
  CK(cudaMalloc(&d_q, kHidden * sizeof(float)));
  CK(cudaMalloc(&d_attn, kHidden * sizeof(float)));
  CK(cudaMalloc(&d_token, sizeof(int)));
  CK(cudaMalloc(&d_pos, sizeof(int)));

  int *h_pos, *h_token;
  CK(cudaMallocHost(&h_pos, sizeof(int)));
  CK(cudaMallocHost(&h_token, sizeof(int)));

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  KvCache cache(512);  // start-up size

  cudaGraph_t g;
  cudaGraphExec_t decode;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CK(cudaMemcpyAsync(d_pos, h_pos, sizeof(int), cudaMemcpyHostToDevice, s));
  embed<<<kHidden / 128, 128, 0, s>>>(d_table, d_token, d_x);
  qkv_append<<<3 * kHidden / 128, 128, 0, s>>>(d_wqkv, d_x, d_pos, d_q, cache.keys(), cache.values());
  attend<<<kHeads, kHeadDim, 0, s>>>(d_q, cache.keys(), cache.values(), d_pos, d_attn);
  lm_head_argmax<<<1, 256, 0, s>>>(d_table, d_attn, d_token);
  CK(cudaMemcpyAsync(h_token, d_token, sizeof(int), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&decode, g, 0));
  CK(cudaGraphDestroy(g));

  // Warm-up replay so the first request does not pay for lazy module loading.
  const int bos = 1;
  CK(cudaMemcpy(d_token, &bos, sizeof(int), cudaMemcpyHostToDevice));
  h_pos[0] = 0;
  CK(cudaGraphLaunch(decode, s));
  CK(cudaStreamSynchronize(s));

  // A request: prompt plus a budget of new tokens.
  const std::vector<int> prompt = {1, 415, 2290, 17, 3981, 88, 702};
  const int max_new = 900;
  const int len = static_cast<int>(prompt.size());
  cache.reset(len + max_new);

  CK(cudaMalloc(&d_prompt, prompt.size() * sizeof(int)));
  CK(cudaMemcpy(d_prompt, prompt.data(), prompt.size() * sizeof(int), cudaMemcpyHostToDevice));
  // Prefill caches every prompt token but the last, which the first decode step processes.
  prefill<<<(len * kHidden + 255) / 256, 256, 0, s>>>(d_table, d_prompt, len - 1, cache.keys(), cache.values());
  CK(cudaGetLastError());
  CK(cudaMemcpyAsync(d_token, d_prompt + (len - 1), sizeof(int), cudaMemcpyDeviceToDevice, s));

  std::vector<int> generated;
  for (int t = 0; t < max_new; ++t) {
    h_pos[0] = len - 1 + t;
    CK(cudaGraphLaunch(decode, s));  // EXPECT: graph_uses_freed_memory
    CK(cudaStreamSynchronize(s));
    generated.push_back(h_token[0]);
    if (h_token[0] == kEos) break;
  }
  CK(cudaStreamSynchronize(s));
  std::printf("%zu tokens generated\n", generated.size());

  CK(cudaGraphExecDestroy(decode));
  CK(cudaFree(d_prompt));
  CK(cudaFreeHost(h_token));
  CK(cudaFreeHost(h_pos));
  CK(cudaFree(d_pos));
  CK(cudaFree(d_token));
  CK(cudaFree(d_attn));
  CK(cudaFree(d_q));
  CK(cudaFree(d_x));
  CK(cudaFree(d_wqkv));
  CK(cudaFree(d_table));
  CK(cudaStreamDestroy(s));
  return 0;  // ~KvCache frees the request's cache
}
