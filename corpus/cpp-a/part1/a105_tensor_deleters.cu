// case: MLP inference with std::unique_ptr tensors whose custom deleters match their allocators (cudaFree for cudaMalloc, cudaFreeHost for cudaMallocHost) and a synchronized readback into the pinned tensor (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#define CUDA_CHECK(x)                                                           \
  do {                                                                          \
    cudaError_t e = (x);                                                        \
    if (e != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorName(e)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct DeviceDeleter {
  void operator()(void* p) const noexcept { cudaFree(p); }
};
struct PinnedDeleter {
  void operator()(void* p) const noexcept { cudaFreeHost(p); }
};

template <typename T> using device_ptr = std::unique_ptr<T[], DeviceDeleter>;
template <typename T> using pinned_ptr = std::unique_ptr<T[], PinnedDeleter>;

template <typename T>
device_ptr<T> make_device(size_t n) {
  T* raw = nullptr;
  if (cudaMalloc(&raw, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
  return device_ptr<T>(raw);
}

template <typename T>
pinned_ptr<T> make_pinned(size_t n) {
  T* raw = nullptr;
  if (cudaMallocHost(&raw, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
  return pinned_ptr<T>(raw);
}

// y[b, o] = act(sum_i x[b, i] * W[o, i] + bias[o])
__global__ void dense_forward(const float* x, const float* W, const float* bias, float* y,
                              int batch, int in_f, int out_f, int relu) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (o >= out_f || b >= batch) return;
  float acc = bias[o];
  for (int i = 0; i < in_f; ++i) acc += x[b * in_f + i] * W[o * in_f + i];
  y[b * out_f + o] = relu ? fmaxf(acc, 0.f) : acc;
}

struct DenseLayer {
  int in_f, out_f;
  bool relu;
  device_ptr<float> W;
  device_ptr<float> bias;

  DenseLayer(int in, int out, bool act, cudaStream_t s)
      : in_f(in), out_f(out), relu(act), W(make_device<float>(size_t(in) * out)),
        bias(make_device<float>(out)) {
    pinned_ptr<float> init = make_pinned<float>(size_t(in) * out + out);
    for (size_t i = 0; i < size_t(in) * out; ++i) init[i] = 0.5f / in;
    for (int o = 0; o < out; ++o) init[size_t(in) * out + o] = 0.01f;
    CUDA_CHECK(cudaMemcpyAsync(W.get(), init.get(), size_t(in) * out * sizeof(float), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(bias.get(), init.get() + size_t(in) * out, out * sizeof(float), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaStreamSynchronize(s));  // `init` is freed when the constructor returns
  }
};

class Mlp {
 public:
  Mlp(const std::vector<int>& widths, int max_batch) : max_batch_(max_batch) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (size_t l = 0; l + 1 < widths.size(); ++l)
      layers_.emplace_back(widths[l], widths[l + 1], l + 2 < widths.size(), stream_);
    int widest = 0;
    for (int w : widths) widest = w > widest ? w : widest;
    act_a_ = make_device<float>(size_t(widest) * max_batch);
    act_b_ = make_device<float>(size_t(widest) * max_batch);
    h_io_ = make_pinned<float>(size_t(widest) * max_batch);
  }

  ~Mlp() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }

  // Returns the argmax class of each row.
  std::vector<int> classify(const std::vector<float>& x, int batch) {
    const int in_f = layers_.front().in_f;
    const int out_f = layers_.back().out_f;
    for (size_t i = 0; i < size_t(batch) * in_f; ++i) h_io_[i] = x[i];
    CUDA_CHECK(cudaMemcpyAsync(act_a_.get(), h_io_.get(), size_t(batch) * in_f * sizeof(float), cudaMemcpyHostToDevice, stream_));
    float* cur = act_a_.get();
    float* nxt = act_b_.get();
    for (const DenseLayer& L : layers_) {
      dim3 grid((L.out_f + 127) / 128, batch);
      dense_forward<<<grid, 128, 0, stream_>>>(cur, L.W.get(), L.bias.get(), nxt, batch, L.in_f, L.out_f, L.relu);
      std::swap(cur, nxt);
    }
    CUDA_CHECK(cudaMemcpyAsync(h_io_.get(), cur, size_t(batch) * out_f * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));

    std::vector<int> labels(batch);
    for (int b = 0; b < batch; ++b) {
      int best = 0;
      for (int c = 1; c < out_f; ++c)
        if (h_io_[size_t(b) * out_f + c] > h_io_[size_t(b) * out_f + best]) best = c;
      labels[b] = best;
    }
    return labels;
  }

 private:
  int max_batch_;
  cudaStream_t stream_ = nullptr;
  std::vector<DenseLayer> layers_;
  device_ptr<float> act_a_, act_b_;
  pinned_ptr<float> h_io_;
};

int main() {
  Mlp net({784, 512, 256, 10}, 64);
  std::vector<float> images(64 * 784, 0.25f);
  std::vector<int> labels = net.classify(images, 64);
  std::printf("label[0] = %d\n", labels[0]);
  return 0;
}
