// Inference engine for a small classifier head, served with one CUDA graph per batch size. When
// traffic moves to another batch bucket, set_batch() re-captures the graph and resizes the
// activation buffers (stream-ordered allocator). It does the two in the wrong order: the new
// graph is captured against the old buffers, which are then returned to the pool.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CK(call)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "engine: %s -> %s\n", #call, cudaGetErrorString(e_));     \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

constexpr int kIn = 256;
constexpr int kHidden = 512;
constexpr int kClasses = 10;
constexpr int kMaxBatch = 64;

__global__ void dense_relu(const float* w, const float* b, const float* x, float* y, int rows, int in, int out) {
  int r = blockIdx.y, o = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows || o >= out) return;
  float acc = b[o];
  for (int i = 0; i < in; ++i) acc += w[(size_t)o * in + i] * x[(size_t)r * in + i];
  y[(size_t)r * out + o] = fmaxf(acc, 0.0f);
}

__global__ void dense_logits(const float* w, const float* x, float* y, int rows, int in, int out) {
  int r = blockIdx.y, o = threadIdx.x;
  if (r >= rows || o >= out) return;
  float acc = 0.0f;
  for (int i = 0; i < in; ++i) acc += w[(size_t)o * in + i] * x[(size_t)r * in + i];
  y[(size_t)r * out + o] = acc;
}

struct Weights {
  float *w1, *b1, *w2;
};

class Engine {
 public:
  Engine(cudaStream_t s, const Weights& w, float* h_in, float* h_out, int batch)
      : s_(s), w_(w), h_in_(h_in), h_out_(h_out) {
    allocate(batch);
    capture(batch);
  }
  ~Engine() {
    CK(cudaStreamSynchronize(s_));
    CK(cudaGraphExecDestroy(exec_));
    release();
    CK(cudaStreamSynchronize(s_));
  }

  // Called when the batch bucket changes.
  void set_batch(int batch) {
    CK(cudaStreamSynchronize(s_));
    CK(cudaGraphExecDestroy(exec_));
    capture(batch);
    release();
    allocate(batch);
  }

  cudaGraphExec_t exec() const { return exec_; }
  int batch() const { return batch_; }

 private:
  void allocate(int batch) {
    batch_ = batch;
    CK(cudaMallocAsync(&d_x_, sizeof(float) * batch * kIn, s_));
    CK(cudaMallocAsync(&d_h_, sizeof(float) * batch * kHidden, s_));
    CK(cudaMallocAsync(&d_logits_, sizeof(float) * batch * kClasses, s_));
  }
  void release() {
    CK(cudaFreeAsync(d_logits_, s_));
    CK(cudaFreeAsync(d_h_, s_));
    CK(cudaFreeAsync(d_x_, s_));
  }
  void capture(int batch) {
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s_, cudaStreamCaptureModeGlobal));
    CK(cudaMemcpyAsync(d_x_, h_in_, sizeof(float) * batch * kIn, cudaMemcpyHostToDevice, s_));
    dense_relu<<<dim3((kHidden + 127) / 128, batch), 128, 0, s_>>>(w_.w1, w_.b1, d_x_, d_h_, batch, kIn, kHidden);
    dense_logits<<<dim3(1, batch), 32, 0, s_>>>(w_.w2, d_h_, d_logits_, batch, kHidden, kClasses);
    CK(cudaMemcpyAsync(h_out_, d_logits_, sizeof(float) * batch * kClasses, cudaMemcpyDeviceToHost, s_));
    CK(cudaStreamEndCapture(s_, &g));
    CK(cudaGraphInstantiate(&exec_, g, 0));
    CK(cudaGraphDestroy(g));
  }

  cudaStream_t s_;
  Weights w_;
  float* h_in_;
  float* h_out_;
  float *d_x_ = nullptr, *d_h_ = nullptr, *d_logits_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  int batch_ = 0;
};

static void fill_requests(float* h_in, int batch, int round) {
  for (int i = 0; i < batch * kIn; ++i) h_in[i] = 0.001f * ((i * 31 + round * 7) % 1000) - 0.5f;
}

static int count_class0(const float* logits, int batch) {
  int hits = 0;
  for (int r = 0; r < batch; ++r) {
    int arg = 0;
    for (int c = 1; c < kClasses; ++c)
      if (logits[r * kClasses + c] > logits[r * kClasses + arg]) arg = c;
    hits += arg == 0;
  }
  return hits;
}

int main() {
  std::mt19937 rng(17);
  std::normal_distribution<float> nd(0.0f, 0.05f);
  std::vector<float> w1((size_t)kHidden * kIn), b1(kHidden), w2((size_t)kClasses * kHidden);
  for (float& v : w1) v = nd(rng);
  for (float& v : b1) v = nd(rng);
  for (float& v : w2) v = nd(rng);

  Weights w;
  CK(cudaMalloc(&w.w1, w1.size() * sizeof(float)));
  CK(cudaMalloc(&w.b1, b1.size() * sizeof(float)));
  CK(cudaMalloc(&w.w2, w2.size() * sizeof(float)));
  CK(cudaMemcpy(w.w1, w1.data(), w1.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w.b1, b1.data(), b1.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w.w2, w2.data(), w2.size() * sizeof(float), cudaMemcpyHostToDevice));

  float *h_in = nullptr, *h_out = nullptr;
  CK(cudaMallocHost(&h_in, sizeof(float) * kMaxBatch * kIn));
  CK(cudaMallocHost(&h_out, sizeof(float) * kMaxBatch * kClasses));

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int class0 = 0;
  {
    Engine engine(s, w, h_in, h_out, 32);

    // Peak traffic: batches of 32.
    for (int round = 0; round < 50; ++round) {
      fill_requests(h_in, engine.batch(), round);
      CK(cudaGraphLaunch(engine.exec(), s));
      CK(cudaStreamSynchronize(s));
      class0 += count_class0(h_out, engine.batch());
    }

    // Traffic drops: the scheduler moves to the 8 bucket.
    engine.set_batch(8);
    for (int round = 0; round < 200; ++round) {
      fill_requests(h_in, engine.batch(), round);
      CK(cudaGraphLaunch(engine.exec(), s));  // EXPECT: graph_uses_freed_memory
      CK(cudaStreamSynchronize(s));
      class0 += count_class0(h_out, engine.batch());
    }
  }
  std::printf("class 0 predicted %d times\n", class0);

  CK(cudaFreeHost(h_out));
  CK(cudaFreeHost(h_in));
  CK(cudaFree(w.w2));
  CK(cudaFree(w.b1));
  CK(cudaFree(w.w1));
  CK(cudaStreamDestroy(s));
  return 0;
}
