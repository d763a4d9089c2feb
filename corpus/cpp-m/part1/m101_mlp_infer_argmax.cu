// case: An MLP classifier copies its logits back into a pinned buffer with cudaMemcpyAsync on a non-blocking stream and takes the argmax of each row before the cudaStreamSynchronize that follows, reading stale logits (missing_sync at the first logit read).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "CUDA error '%s' at %s:%d\n",                    \
                         cudaGetErrorString(err_), __FILE__, __LINE__);           \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&ptr_, n * sizeof(T))); }
    ~DeviceBuffer() { cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    T* get() const { return ptr_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* ptr_ = nullptr;
    size_t n_;
};

template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t n) : n_(n) { CUDA_CHECK(cudaMallocHost(&ptr_, n * sizeof(T))); }
    ~PinnedBuffer() { cudaFreeHost(ptr_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    T* get() const { return ptr_; }
private:
    T* ptr_ = nullptr;
    size_t n_;
};

constexpr int kIn = 784;
constexpr int kHidden = 256;
constexpr int kOut = 10;
constexpr int kMaxBatch = 512;

// y[b, o] = act(sum_i x[b, i] * w[o, i] + bias[o])
__global__ void dense(const float* __restrict__ x, const float* __restrict__ w,
                      const float* __restrict__ bias, float* __restrict__ y,
                      int in, int out, int batch, bool relu) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (o >= out || b >= batch) return;
    float acc = bias[o];
    for (int i = 0; i < in; ++i) acc += x[b * in + i] * w[o * in + i];
    y[b * out + o] = relu ? fmaxf(acc, 0.0f) : acc;
}

class MlpClassifier {
public:
    MlpClassifier()
        : w1_(kHidden * kIn), b1_(kHidden), w2_(kOut * kHidden), b2_(kOut),
          x_(kMaxBatch * kIn), hidden_(kMaxBatch * kHidden), logits_(kMaxBatch * kOut),
          h_in_(kMaxBatch * kIn), h_logits_(kMaxBatch * kOut) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    }
    ~MlpClassifier() { cudaStreamDestroy(stream_); }

    void load_weights(const std::vector<float>& w1, const std::vector<float>& b1,
                      const std::vector<float>& w2, const std::vector<float>& b2) {
        CUDA_CHECK(cudaMemcpy(w1_.get(), w1.data(), w1_.bytes(), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(b1_.get(), b1.data(), b1_.bytes(), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(w2_.get(), w2.data(), w2_.bytes(), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(b2_.get(), b2.data(), b2_.bytes(), cudaMemcpyHostToDevice));
    }

    std::vector<int> classify(const float* images, int batch) {
        std::memcpy(h_in_.get(), images, size_t(batch) * kIn * sizeof(float));
        CUDA_CHECK(cudaMemcpyAsync(x_.get(), h_in_.get(), size_t(batch) * kIn * sizeof(float),
                                   cudaMemcpyHostToDevice, stream_));
        dim3 block(128);
        dense<<<dim3((kHidden + 127) / 128, batch), block, 0, stream_>>>(
            x_.get(), w1_.get(), b1_.get(), hidden_.get(), kIn, kHidden, batch, true);
        dense<<<dim3(1, batch), block, 0, stream_>>>(
            hidden_.get(), w2_.get(), b2_.get(), logits_.get(), kHidden, kOut, batch, false);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_logits_.get(), logits_.get(), size_t(batch) * kOut * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));

        const float* logits = h_logits_.get();
        std::vector<int> labels(batch);
        for (int b = 0; b < batch; ++b) {
            int best = 0;
            float best_v = logits[b * kOut];  // EXPECT: missing_sync
            for (int o = 1; o < kOut; ++o) {
                if (logits[b * kOut + o] > best_v) { best_v = logits[b * kOut + o]; best = o; }
            }
            labels[b] = best;
        }
        // Wait so the next call may refill the staging buffer.
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return labels;
    }

private:
    DeviceBuffer<float> w1_, b1_, w2_, b2_;
    DeviceBuffer<float> x_, hidden_, logits_;
    PinnedBuffer<float> h_in_, h_logits_;
    cudaStream_t stream_ = nullptr;
};

int main() {
    std::mt19937 rng(42);
    std::normal_distribution<float> nd(0.0f, 0.05f);
    auto randvec = [&](size_t n) { std::vector<float> v(n); for (auto& x : v) x = nd(rng); return v; };

    MlpClassifier model;
    model.load_weights(randvec(kHidden * kIn), randvec(kHidden), randvec(kOut * kHidden), randvec(kOut));

    std::vector<float> images = randvec(size_t(kMaxBatch) * kIn);
    std::vector<int> labels = model.classify(images.data(), kMaxBatch);
    int histogram[kOut] = {};
    for (int l : labels) histogram[l]++;
    for (int c = 0; c < kOut; ++c) std::printf("class %d: %d\n", c, histogram[c]);
    return 0;
}
