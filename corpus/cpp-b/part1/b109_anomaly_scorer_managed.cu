// case: network anomaly scorer: while the scoring kernel (device buffers only) runs, the host retunes a cudaMallocManaged threshold struct, then reads the pinned scores copied back by cudaMemcpyAsync before synchronizing the stream
// expect: managed_concurrent_access=1, missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct ScoreConfig {
    float threshold;
    float decay;
    int window;
};

__global__ void score_flows(const float* features, float* scores, int flows, int dims) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= flows) return;
    float s = 0.0f;
    for (int d = 0; d < dims; ++d) { float v = features[f * dims + d]; s += v * v; }
    scores[f] = sqrtf(s);
}

__global__ void flag_anomalies(const float* scores, const ScoreConfig* cfg, int* flags, int flows) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f < flows) flags[f] = scores[f] > cfg->threshold ? 1 : 0;
}

class AnomalyScorer {
public:
    AnomalyScorer(int flows, int dims) : flows_(flows), dims_(dims) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_features_, static_cast<size_t>(flows_) * dims_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_scores_, flows_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_flags_, flows_ * sizeof(int)));
        CUDA_CHECK(cudaMallocHost(&h_scores_, flows_ * sizeof(float)));
        CUDA_CHECK(cudaMallocManaged(&cfg_, sizeof(ScoreConfig)));
        cfg_->threshold = 4.0f;
        cfg_->decay = 0.9f;
        cfg_->window = 64;
        CUDA_CHECK(cudaMemsetAsync(d_features_, 0, static_cast<size_t>(flows_) * dims_ * sizeof(float), stream_));
    }

    ~AnomalyScorer() {
        cudaStreamSynchronize(stream_);
        cudaFree(cfg_);
        cudaFreeHost(h_scores_);
        cudaFree(d_flags_);
        cudaFree(d_scores_);
        cudaFree(d_features_);
        cudaStreamDestroy(stream_);
    }

    int step(float next_threshold) {
        int blocks = (flows_ + 255) / 256;
        score_flows<<<blocks, 256, 0, stream_>>>(d_features_, d_scores_, flows_, dims_);
        CUDA_CHECK(cudaMemcpyAsync(h_scores_, d_scores_, flows_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));

        this->cfg_->threshold = next_threshold * this->cfg_->decay; // EXPECT: managed_concurrent_access

        int hot = 0;
        if (h_scores_[0] > next_threshold) ++hot; // EXPECT: missing_sync
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (int f = 1; f < flows_; ++f)
            if (h_scores_[f] > next_threshold) ++hot;

        flag_anomalies<<<blocks, 256, 0, stream_>>>(d_scores_, cfg_, d_flags_, flows_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return hot;
    }

private:
    int flows_, dims_;
    cudaStream_t stream_ = nullptr;
    float* d_features_ = nullptr;
    float* d_scores_ = nullptr;
    int* d_flags_ = nullptr;
    float* h_scores_ = nullptr;
    ScoreConfig* cfg_ = nullptr;
};

int main() {
    AnomalyScorer scorer(1 << 18, 16);
    for (int it = 0; it < 4; ++it) std::printf("iter %d: %d hot flows\n", it, scorer.step(3.0f + it));
    return 0;
}
