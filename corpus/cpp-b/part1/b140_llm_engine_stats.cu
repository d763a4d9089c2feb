// case: LLM decode engine: prompt tokens go up with cudaMemcpyAsync straight from a std::vector (pageable), and with ENGINE_TRACK_STATS defined to 1 in the file the host bumps counters in a cudaMallocManaged stats struct while the embedding kernel (which does not use it) may still run
// expect: pageable_async_copy=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define ENGINE_TRACK_STATS 1

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct EngineStats {
    unsigned long long requests;
    unsigned long long tokens;
    double last_batch_ms;
};

__global__ void embed_tokens(const int32_t* tokens, const float* table, float* hidden, int n_tokens, int dim) {
    int t = blockIdx.x;
    if (t >= n_tokens) return;
    const float* row = table + static_cast<size_t>(tokens[t]) * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) hidden[static_cast<size_t>(t) * dim + d] = row[d];
}

class DecodeEngine {
public:
    DecodeEngine(int vocab, int dim, int max_tokens) : vocab_(vocab), dim_(dim), max_tokens_(max_tokens) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_table_, static_cast<size_t>(vocab_) * dim_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_tokens_, max_tokens_ * sizeof(int32_t)));
        CUDA_CHECK(cudaMalloc(&d_hidden_, static_cast<size_t>(max_tokens_) * dim_ * sizeof(float)));
#if ENGINE_TRACK_STATS
        CUDA_CHECK(cudaMallocManaged(&stats_, sizeof(EngineStats)));
        stats_->requests = 0;
        stats_->tokens = 0;
        stats_->last_batch_ms = 0.0;
#endif
        CUDA_CHECK(cudaMemsetAsync(d_table_, 0, static_cast<size_t>(vocab_) * dim_ * sizeof(float), stream_));
    }

    ~DecodeEngine() {
        cudaStreamSynchronize(stream_);
#if ENGINE_TRACK_STATS
        cudaFree(stats_);
#endif
        cudaFree(d_hidden_);
        cudaFree(d_tokens_);
        cudaFree(d_table_);
        cudaStreamDestroy(stream_);
    }

    void prefill(const std::vector<int32_t>& prompt) {
        int n = static_cast<int>(prompt.size());
        if (n > max_tokens_) n = max_tokens_;
        CUDA_CHECK(cudaMemcpyAsync(d_tokens_, prompt.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
        embed_tokens<<<n, 128, 0, stream_>>>(d_tokens_, d_table_, d_hidden_, n, dim_);
        CUDA_CHECK(cudaGetLastError());
#if ENGINE_TRACK_STATS
        stats_->requests += 1; // EXPECT: managed_concurrent_access
        stats_->tokens += static_cast<unsigned long long>(n);
#endif
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    unsigned long long requests() const {
#if ENGINE_TRACK_STATS
        return stats_->requests;
#else
        return 0;
#endif
    }

private:
    int vocab_, dim_, max_tokens_;
    cudaStream_t stream_ = nullptr;
    float* d_table_ = nullptr;
    int32_t* d_tokens_ = nullptr;
    float* d_hidden_ = nullptr;
    EngineStats* stats_ = nullptr;
};

int main() {
    DecodeEngine engine(32000, 4096, 1 << 16);
    std::vector<int32_t> prompt(1 << 16);
    for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int32_t>((i * 7) % 32000);
    for (int r = 0; r < 4; ++r) engine.prefill(prompt);
    std::printf("served %llu requests\n", engine.requests());
    return 0;
}
