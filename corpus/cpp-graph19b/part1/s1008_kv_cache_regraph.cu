// Single-sequence LLM server loop with CUDA graphs. The decode graph names the KV cache's
// buffers, so the engine re-captures it whenever a request needs a larger cache: the old
// executable graph is destroyed before the cache is reallocated, and only the new one runs.
#include <cuda_runtime.h>

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

constexpr int kHeads = 4;
constexpr int kHeadDim = 64;
constexpr int kHidden = kHeads * kHeadDim;
constexpr int kVocab = 4096;
constexpr int kEos = 2;

__global__ void embed(const float* table, const int* token, float* x) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < kHidden) x[j] = table[(size_t)(*token) * kHidden + j];
}

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

__global__ void attend(const float* q, const float* k_cache, const float* v_cache, const int* pos, float* out) {
  const int h = blockIdx.x, d = threadIdx.x;
  const int len = *pos + 1;
  float m = -1e30f, denom = 0.0f, acc = 0.0f;
  for (int t = 0; t < len; ++t) {
    float s = 0.0f;
    for (int e = 0; e < kHeadDim; ++e) s += q[h * kHeadDim + e] * k_cache[(size_t)t * kHidden + h * kHeadDim + e];
    s *= 0.125f;
    float m_new = fmaxf(m, s);
    float corr = __expf(m - m_new), w = __expf(s - m_new);
    denom = denom * corr + w;
    acc = acc * corr + w * v_cache[(size_t)t * kHidden + h * kHeadDim + d];
    m = m_new;
  }
  out[h * kHeadDim + d] = acc / denom;
}

__global__ void lm_head_argmax(const float* w_out, const float* a, int* token) {
  __shared__ float best[128];
  __shared__ int best_id[128];
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

__global__ void prefill(const float* table, const int* prompt, int len, float* k_cache, float* v_cache) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= len * kHidden) return;
  float e = table[(size_t)prompt[i / kHidden] * kHidden + i % kHidden];
  k_cache[i] = e;
  v_cache[i] = 0.5f * e;
}

class KvCache {
 public:
  explicit KvCache(int max_tokens) { allocate(max_tokens); }
  ~KvCache() { release(); }
  KvCache(const KvCache&) = delete;
  KvCache& operator=(const KvCache&) = delete;

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

struct Model {
  float* table = nullptr;
  float* w_qkv = nullptr;
  float* x = nullptr;
  float* q = nullptr;
  float* attn = nullptr;
  int* token = nullptr;
  int* pos = nullptr;
  int* h_pos = nullptr;    // pinned
  int* h_token = nullptr;  // pinned
};

// Owns the executable decode graph and the stream it runs on.
class DecodeGraph {
 public:
  explicit DecodeGraph(cudaStream_t s) : s_(s) {}
  ~DecodeGraph() { destroy(); }

  void destroy() {
    if (!exec_) return;
    CK(cudaStreamSynchronize(s_));
    CK(cudaGraphExecDestroy(exec_));
    exec_ = nullptr;
  }

  void capture(const Model& m, const KvCache& cache) {
    destroy();
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s_, cudaStreamCaptureModeGlobal));
    CK(cudaMemcpyAsync(m.pos, m.h_pos, sizeof(int), cudaMemcpyHostToDevice, s_));
    embed<<<kHidden / 128, 128, 0, s_>>>(m.table, m.token, m.x);
    qkv_append<<<3 * kHidden / 128, 128, 0, s_>>>(m.w_qkv, m.x, m.pos, m.q, cache.keys(), cache.values());
    attend<<<kHeads, kHeadDim, 0, s_>>>(m.q, cache.keys(), cache.values(), m.pos, m.attn);
    lm_head_argmax<<<1, 128, 0, s_>>>(m.table, m.attn, m.token);
    CK(cudaMemcpyAsync(m.h_token, m.token, sizeof(int), cudaMemcpyDeviceToHost, s_));
    CK(cudaStreamEndCapture(s_, &g));
    CK(cudaGraphInstantiate(&exec_, g, 0));
    CK(cudaGraphDestroy(g));
  }

  void launch() { CK(cudaGraphLaunch(exec_, s_)); }

 private:
  cudaStream_t s_;
  cudaGraphExec_t exec_ = nullptr;
};

int main() {
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.0f, 0.05f);
  std::vector<float> table((size_t)kVocab * kHidden), w_qkv((size_t)3 * kHidden * kHidden);
  for (float& v : table) v = nd(rng);
  for (float& v : w_qkv) v = nd(rng);

  Model m;
  CK(cudaMalloc(&m.table, table.size() * sizeof(float)));
  CK(cudaMalloc(&m.w_qkv, w_qkv.size() * sizeof(float)));
  CK(cudaMemcpy(m.table, table.data(), table.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(m.w_qkv, w_qkv.data(), w_qkv.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&m.x, kHidden * sizeof(float)));
  CK(cudaMalloc(&m.q, kHidden * sizeof(float)));
  CK(cudaMalloc(&m.attn, kHidden * sizeof(float)));
  CK(cudaMalloc(&m.token, sizeof(int)));
  CK(cudaMalloc(&m.pos, sizeof(int)));
  CK(cudaMallocHost(&m.h_pos, sizeof(int)));
  CK(cudaMallocHost(&m.h_token, sizeof(int)));

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  {
    KvCache cache(256);
    DecodeGraph decode(s);
    decode.capture(m, cache);

    const std::vector<std::vector<int>> requests = {{1, 77, 1021, 9}, {1, 5, 6, 7, 8, 9, 10, 11, 12}};
    const int max_new = 400;
    int* d_prompt = nullptr;
    CK(cudaMalloc(&d_prompt, 64 * sizeof(int)));
    for (const std::vector<int>& prompt : requests) {
      const int len = static_cast<int>(prompt.size());
      if (len + max_new > cache.capacity()) {
        decode.destroy();              // waits for the stream, then drops the graph naming the old cache
        cache.reset(len + max_new);
        decode.capture(m, cache);      // the new graph names the new cache
      }
      CK(cudaMemcpy(d_prompt, prompt.data(), len * sizeof(int), cudaMemcpyHostToDevice));
      prefill<<<((len - 1) * kHidden + 255) / 256, 256, 0, s>>>(m.table, d_prompt, len - 1, cache.keys(),
                                                                cache.values());
      CK(cudaGetLastError());
      CK(cudaMemcpyAsync(m.token, d_prompt + (len - 1), sizeof(int), cudaMemcpyDeviceToDevice, s));

      int produced = 0;
      for (int t = 0; t < max_new; ++t) {
        m.h_pos[0] = len - 1 + t;
        decode.launch();
        CK(cudaStreamSynchronize(s));
        ++produced;
        if (m.h_token[0] == kEos) break;
      }
      CK(cudaStreamSynchronize(s));  // request done: prefill and the last step no longer use d_prompt
      std::printf("request of %d tokens: %d generated\n", len, produced);
    }
    CK(cudaFree(d_prompt));
  }  // ~DecodeGraph, then ~KvCache: the graph goes before the memory it names

  CK(cudaFreeHost(m.h_token));
  CK(cudaFreeHost(m.h_pos));
  CK(cudaFree(m.pos));
  CK(cudaFree(m.token));
  CK(cudaFree(m.attn));
  CK(cudaFree(m.q));
  CK(cudaFree(m.x));
  CK(cudaFree(m.w_qkv));
  CK(cudaFree(m.table));
  CK(cudaStreamDestroy(s));
  return 0;
}
