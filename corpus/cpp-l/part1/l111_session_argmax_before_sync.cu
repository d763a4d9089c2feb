// case: an inference session class enqueues the LM-head GEMV and the async copy of the logits into its pinned member buffer and returns; argmax() then scans the pinned logits with no wait on the session's stream (the destructor synchronizes, but only later).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
            std::abort();                                                        \
        }                                                                        \
    } while (0)

__global__ void lm_head_gemv(const float* __restrict__ w, const float* __restrict__ h,
                             float* __restrict__ logits, int vocab, int dim) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vocab) return;
    const float* row = w + size_t(v) * dim;
    float acc = 0.f;
    for (int k = 0; k < dim; ++k) acc += row[k] * h[k];
    logits[v] = acc;
}

class InferenceSession {
public:
    InferenceSession(const std::vector<float>& weights, int vocab, int dim) : vocab_(vocab), dim_(dim) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_weights_, weights.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_hidden_, size_t(dim) * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_logits_, size_t(vocab) * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_logits_, size_t(vocab) * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(d_weights_, weights.data(), weights.size() * sizeof(float),
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize()); // weights resident before stream_ (non-blocking) uses them
    }

    ~InferenceSession() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_logits_);
        cudaFree(d_logits_);
        cudaFree(d_hidden_);
        cudaFree(d_weights_);
        cudaStreamDestroy(stream_);
    }

    InferenceSession(const InferenceSession&) = delete;
    InferenceSession& operator=(const InferenceSession&) = delete;

    // hidden_pinned must be page-locked and stay untouched until the step completes
    void enqueue(const float* hidden_pinned) {
        CUDA_CHECK(cudaMemcpyAsync(d_hidden_, hidden_pinned, size_t(dim_) * sizeof(float),
                                   cudaMemcpyHostToDevice, stream_));
        lm_head_gemv<<<(vocab_ + 127) / 128, 128, 0, stream_>>>(d_weights_, d_hidden_, d_logits_, vocab_, dim_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_logits_, d_logits_, size_t(vocab_) * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));
    }

    int argmax() const {
        int best = 0;
        float best_val = -1e30f;
        for (int v = 0; v < vocab_; ++v) {
            const float val = h_logits_[v]; // EXPECT: missing_sync
            if (val > best_val) {
                best_val = val;
                best = v;
            }
        }
        return best;
    }

private:
    int vocab_;
    int dim_;
    cudaStream_t stream_{};
    float* d_weights_{};
    float* d_hidden_{};
    float* d_logits_{};
    float* h_logits_{};
};

int main() {
    const int vocab = 32000, dim = 1024;
    std::vector<float> w(size_t(vocab) * dim);
    for (size_t i = 0; i < w.size(); ++i) w[i] = float((i * 40503u) % 2001) * 1e-3f - 1.f;

    float* hidden = nullptr;
    CUDA_CHECK(cudaMallocHost(&hidden, dim * sizeof(float)));
    for (int k = 0; k < dim; ++k) hidden[k] = (k % 3 == 0) ? 0.25f : -0.125f;

    int token = -1;
    {
        InferenceSession session(w, vocab, dim);
        session.enqueue(hidden);
        token = session.argmax();
    }
    printf("next token: %d\n", token);
    CUDA_CHECK(cudaFreeHost(hidden));
    return 0;
}
