// Acoustic-model scorer of a speech recogniser: each request's log-mel features are staged
// in pinned memory, the recorded graph uploads them, scores every frame against the phone
// inventory and brings the scores back. Pinned memory is treated as a per-request resource:
// after a request is answered its staging buffer is handed back and a fresh one is taken
// for the next request (as an allocator that recycles pinned blocks would do).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
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

constexpr int kFrames = 1500;  // 15 s at 100 frames/s
constexpr int kMels = 80;
constexpr int kPhones = 48;

__global__ void score_frames(const float* __restrict__ feats, const float* __restrict__ w,
                             const float* __restrict__ bias, float* __restrict__ scores) {
    int f = blockIdx.x;
    int p = threadIdx.x;
    if (p >= kPhones) return;
    float acc = bias[p];
    for (int m = 0; m < kMels; ++m) acc += feats[f * kMels + m] * w[m * kPhones + p];
    scores[f * kPhones + p] = acc;
}

static cudaGraphExec_t record_scorer(cudaStream_t stream, const float* h_feats, float* d_feats,
                                     const float* d_w, const float* d_bias, float* d_scores,
                                     float* h_scores) {
    const size_t feat_bytes = sizeof(float) * kFrames * kMels;
    const size_t score_bytes = sizeof(float) * kFrames * kPhones;
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_feats, h_feats, feat_bytes, cudaMemcpyHostToDevice, stream));
    score_frames<<<kFrames, 64, 0, stream>>>(d_feats, d_w, d_bias, d_scores);
    CUDA_CHECK(cudaMemcpyAsync(h_scores, d_scores, score_bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    return exec;
}

static void load_features(int request, float* dst) {
    for (int i = 0; i < kFrames * kMels; ++i) dst[i] = -4.0f + 0.01f * ((i * 17 + request * 101) % 800);
}

int main() {
    const size_t feat_bytes = sizeof(float) * kFrames * kMels;
    const size_t score_bytes = sizeof(float) * kFrames * kPhones;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::vector<float> w(kMels * kPhones), bias(kPhones);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.01f * static_cast<float>((i * 7) % 13) - 0.06f;
    for (int p = 0; p < kPhones; ++p) bias[p] = -0.1f * (p % 5);
    float *d_w, *d_bias, *d_feats, *d_scores, *h_scores;
    CUDA_CHECK(cudaMalloc(&d_w, w.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_bias, bias.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_feats, feat_bytes));
    CUDA_CHECK(cudaMalloc(&d_scores, score_bytes));
    CUDA_CHECK(cudaMallocHost(&h_scores, score_bytes));
    CUDA_CHECK(cudaMemcpy(d_w, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_bias, bias.data(), bias.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());

    float* h_stage = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_stage, feat_bytes));
    cudaGraphExec_t scorer = record_scorer(stream, h_stage, d_feats, d_w, d_bias, d_scores, h_scores);

    std::vector<int> best_phone(kFrames);
    for (int request = 0; request < 64; ++request) {
        load_features(request, h_stage);
        CUDA_CHECK(cudaGraphLaunch(scorer, stream));  // EXPECT: graph_uses_freed_memory
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int f = 0; f < kFrames; ++f) {
            const float* row = h_scores + f * kPhones;
            int best = 0;
            for (int p = 1; p < kPhones; ++p) best = row[p] > row[best] ? p : best;
            best_phone[f] = best;
        }
        std::printf("request %d: first phone %d, last phone %d\n", request, best_phone[0],
                    best_phone[kFrames - 1]);
        // Request answered: return its staging and take a fresh block for the next one.
        CUDA_CHECK(cudaFreeHost(h_stage));
        CUDA_CHECK(cudaMallocHost(&h_stage, feat_bytes));
    }

    CUDA_CHECK(cudaGraphExecDestroy(scorer));
    CUDA_CHECK(cudaFreeHost(h_stage));
    CUDA_CHECK(cudaFreeHost(h_scores));
    CUDA_CHECK(cudaFree(d_scores));
    CUDA_CHECK(cudaFree(d_feats));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
