// Acoustic-model scorer whose graph is recorded for a bucket of utterance lengths. When a
// longer utterance arrives the scorer waits for its stream, destroys the graph, reallocates
// its staging and device buffers for the next bucket and records a new graph on them; only
// the new graph is launched afterwards. Shorter utterances are zero-padded to the bucket.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "asr: %s failed: %s (%s:%d)\n", #call,                  \
                         cudaGetErrorString(e_), __FILE__, __LINE__);                    \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

constexpr int kMels = 80;
constexpr int kPhones = 48;

__global__ void score_frames(const float* __restrict__ feats, const float* __restrict__ w,
                             float* __restrict__ scores, int frames) {
    int f = blockIdx.x;
    int p = threadIdx.x;
    if (f >= frames || p >= kPhones) return;
    float acc = 0.0f;
    for (int m = 0; m < kMels; ++m) acc += feats[f * kMels + m] * w[m * kPhones + p];
    scores[f * kPhones + p] = acc;
}

class BucketedScorer {
public:
    explicit BucketedScorer(const std::vector<float>& weights) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        // weights holds kMels x kPhones values (15 KiB).
        CUDA_CHECK(cudaMalloc(&d_w_, kMels * kPhones * sizeof(float)));
        CUDA_CHECK(cudaMemcpyAsync(d_w_, weights.data(), kMels * kPhones * sizeof(float),
                                   cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    ~BucketedScorer() {
        cudaStreamSynchronize(stream_);
        release();
        cudaFree(d_w_);
        cudaStreamDestroy(stream_);
    }

    // Scores `frames` frames of `feats`; returns the pinned score matrix (capacity rows).
    const float* score(const float* feats, int frames) {
        if (frames > capacity_) grow(frames);
        std::memcpy(h_feats_, feats, sizeof(float) * frames * kMels);
        std::memset(h_feats_ + static_cast<size_t>(frames) * kMels, 0,
                    sizeof(float) * (capacity_ - frames) * kMels);
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return h_scores_;
    }

private:
    void release() {
        if (exec_) CUDA_CHECK(cudaGraphExecDestroy(exec_));
        exec_ = nullptr;
        CUDA_CHECK(cudaFreeHost(h_feats_));
        CUDA_CHECK(cudaFreeHost(h_scores_));
        CUDA_CHECK(cudaFree(d_feats_));
        CUDA_CHECK(cudaFree(d_scores_));
        h_feats_ = h_scores_ = d_feats_ = d_scores_ = nullptr;
    }

    void grow(int frames) {
        int cap = 256;
        while (cap < frames) cap *= 2;
        CUDA_CHECK(cudaStreamSynchronize(stream_));  // the old graph may still be running
        release();                                   // old graph first, then its buffers
        capacity_ = cap;
        const size_t feat_bytes = sizeof(float) * cap * kMels;
        const size_t score_bytes = sizeof(float) * cap * kPhones;
        CUDA_CHECK(cudaMallocHost(&h_feats_, feat_bytes));
        CUDA_CHECK(cudaMallocHost(&h_scores_, score_bytes));
        CUDA_CHECK(cudaMalloc(&d_feats_, feat_bytes));
        CUDA_CHECK(cudaMalloc(&d_scores_, score_bytes));

        cudaGraph_t graph;
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        CUDA_CHECK(cudaMemcpyAsync(d_feats_, h_feats_, feat_bytes, cudaMemcpyHostToDevice, stream_));
        score_frames<<<cap, 64, 0, stream_>>>(d_feats_, d_w_, d_scores_, cap);
        CUDA_CHECK(cudaMemcpyAsync(h_scores_, d_scores_, score_bytes, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    cudaStream_t stream_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    int capacity_ = 0;
    float* d_w_ = nullptr;
    float* h_feats_ = nullptr;
    float* h_scores_ = nullptr;
    float* d_feats_ = nullptr;
    float* d_scores_ = nullptr;
};

int main() {
    std::vector<float> w(kMels * kPhones);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.01f * static_cast<float>((i * 7) % 13) - 0.06f;
    BucketedScorer scorer(w);

    const int lengths[] = {180, 240, 610, 300, 1490, 90, 1020};
    for (int len : lengths) {
        std::vector<float> feats(static_cast<size_t>(len) * kMels);
        for (size_t i = 0; i < feats.size(); ++i) feats[i] = -4.0f + 0.01f * ((i * 17) % 800);
        const float* scores = scorer.score(feats.data(), len);
        int best = 0;
        for (int p = 1; p < kPhones; ++p) best = scores[p] > scores[best] ? p : best;
        std::printf("utterance of %4d frames: first phone %d\n", len, best);
    }
    return 0;
}
