// case: inference server session computes the argmax from its pinned logits buffer before synchronizing the stream the readback was queued on, and a debug dump dereferences the device logits member on the host
// expect: missing_sync=1, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <memory>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t s_ = (x);                                                  \
        if (s_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(s_)); \
            std::abort();                                                      \
        }                                                                      \
    } while (0)

__global__ void logits_kernel(const int* tokens, const float* embed, float* logits,
                              int batch, int vocab, int dim) {
    int b = blockIdx.y;
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch || v >= vocab) return;
    const float* e = embed + (size_t)tokens[b] * dim;
    const float* w = embed + (size_t)v * dim;
    float acc = 0.f;
    for (int k = 0; k < dim; ++k) acc += e[k] * w[k];
    logits[(size_t)b * vocab + v] = acc;
}

class InferenceSession {
public:
    InferenceSession(int max_batch, int vocab, int dim)
        : max_batch_(max_batch), vocab_(vocab), dim_(dim) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_tokens_, sizeof(int) * max_batch));
        CUDA_CHECK(cudaMalloc(&d_embed_, sizeof(float) * (size_t)vocab * dim));
        CUDA_CHECK(cudaMalloc(&d_logits_, sizeof(float) * (size_t)max_batch * vocab));
        CUDA_CHECK(cudaMallocHost(&h_tokens_, sizeof(int) * max_batch));
        CUDA_CHECK(cudaMallocHost(&h_logits_, sizeof(float) * (size_t)max_batch * vocab));
        CUDA_CHECK(cudaMemsetAsync(d_embed_, 0, sizeof(float) * (size_t)vocab * dim, stream_));
    }

    ~InferenceSession() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_tokens_);
        cudaFreeHost(h_logits_);
        cudaFree(d_tokens_);
        cudaFree(d_embed_);
        cudaFree(d_logits_);
        cudaStreamDestroy(stream_);
    }

    std::vector<int> step(const std::vector<int>& tokens) {
        const int batch = static_cast<int>(tokens.size());
        for (int i = 0; i < batch; ++i) h_tokens_[i] = tokens[i];
        CUDA_CHECK(cudaMemcpyAsync(d_tokens_, h_tokens_, sizeof(int) * batch, cudaMemcpyHostToDevice, stream_));

        dim3 block(256);
        dim3 grid((vocab_ + 255) / 256, batch);
        logits_kernel<<<grid, block, 0, stream_>>>(d_tokens_, d_embed_, d_logits_, batch, vocab_, dim_);
        CUDA_CHECK(cudaMemcpyAsync(h_logits_, d_logits_, sizeof(float) * (size_t)batch * vocab_,
                                   cudaMemcpyDeviceToHost, stream_));

        std::vector<int> next(batch);
        for (int b = 0; b < batch; ++b) {
            int best = 0;
            float best_val = this->h_logits_[(size_t)b * vocab_]; // EXPECT: missing_sync
            for (int v = 1; v < vocab_; ++v) {
                float x = this->h_logits_[(size_t)b * vocab_ + v];
                if (x > best_val) { best_val = x; best = v; }
            }
            next[b] = best;
        }
        // the stream is only drained here, after the logits were consumed
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return next;
    }

    void debug_dump() const {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::printf("first logit: %f\n", this->d_logits_[0]); // EXPECT: host_deref_device_ptr
    }

private:
    int max_batch_, vocab_, dim_;
    cudaStream_t stream_{};
    int* d_tokens_ = nullptr;
    float* d_embed_ = nullptr;
    float* d_logits_ = nullptr;
    int* h_tokens_ = nullptr;
    float* h_logits_ = nullptr;
};

int main() {
    auto session = std::make_unique<InferenceSession>(8, 32000, 128);
    std::vector<int> tokens = {1, 2, 3, 4};
    for (int t = 0; t < 4; ++t) tokens = session->step(tokens);
    session->debug_dump();
    std::printf("next token of seq 0: %d\n", tokens[0]);
    return 0;
}
