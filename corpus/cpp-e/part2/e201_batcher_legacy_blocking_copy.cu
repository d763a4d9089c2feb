// case: an inference request batcher runs each worker's kernel on a stream made with cudaStreamCreate (blocking), then reads logits back with a plain cudaMemcpy on the legacy default stream, which waits for blocking streams and returns once the pageable copy is complete: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <memory>
#include <vector>

#define CUDA_CHECK(expr)                                                        \
    do {                                                                        \
        cudaError_t err__ = (expr);                                             \
        if (err__ != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,              \
                         cudaGetErrorString(err__));                            \
            std::abort();                                                       \
        }                                                                       \
    } while (0)

constexpr int kBatch = 64;
constexpr int kVocab = 32000;

__global__ void score_batch(const int* tokens, float* logits, int vocab) {
    int row = blockIdx.x;
    for (int v = threadIdx.x; v < vocab; v += blockDim.x)
        logits[row * vocab + v] = 0.001f * float((tokens[row] * 31 + v) % 997);
}

class BatchWorker {
public:
    explicit BatchWorker(int id) : id_(id) {
        CUDA_CHECK(cudaStreamCreate(&stream_));          // blocking stream: the legacy stream waits for it
        CUDA_CHECK(cudaMalloc(&d_tokens_, kBatch * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_logits_, size_t(kBatch) * kVocab * sizeof(float)));
    }
    ~BatchWorker() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_logits_);
        cudaFree(d_tokens_);
        cudaStreamDestroy(stream_);
    }
    BatchWorker(const BatchWorker&) = delete;
    BatchWorker& operator=(const BatchWorker&) = delete;

    void submit(const std::vector<int>& tokens) {
        // blocking copy of a tiny pageable array: the legacy stream orders it before the kernel
        CUDA_CHECK(cudaMemcpy(d_tokens_, tokens.data(), kBatch * sizeof(int), cudaMemcpyHostToDevice));
        score_batch<<<kBatch, 256, 0, stream_>>>(d_tokens_, d_logits_, kVocab);
        CUDA_CHECK(cudaGetLastError());
    }

    int argmax_of_first_row(std::vector<float>& scratch) {
        scratch.resize(size_t(kBatch) * kVocab);
        // legacy default stream: waits for the kernel on the blocking stream_, and a copy to
        // pageable memory returns only once it has completed
        CUDA_CHECK(cudaMemcpy(scratch.data(), d_logits_, scratch.size() * sizeof(float),
                              cudaMemcpyDeviceToHost));
        int best = 0;
        for (int v = 1; v < kVocab; ++v)
            if (scratch[v] > scratch[best]) best = v;
        return best;
    }

    int id() const { return id_; }

private:
    int id_;
    cudaStream_t stream_{};
    int* d_tokens_ = nullptr;
    float* d_logits_ = nullptr;
};

int main() {
    std::vector<std::unique_ptr<BatchWorker>> workers;
    for (int i = 0; i < 3; ++i) workers.push_back(std::make_unique<BatchWorker>(i));

    std::vector<int> tokens(kBatch);
    std::vector<float> scratch;
    for (auto& w : workers) {
        for (int i = 0; i < kBatch; ++i) tokens[i] = i * 7 + w->id();
        w->submit(tokens);
    }
    for (auto& w : workers)
        std::printf("worker %d -> token %d\n", w->id(), w->argmax_of_first_row(scratch));
    return 0;
}
