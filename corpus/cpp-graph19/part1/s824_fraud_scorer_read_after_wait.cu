// Transaction fraud scorer replaying one graph per micro-batch: features are staged in
// pinned memory, a two-layer MLP scores them, and the scores come back into pinned memory.
// Right after recording, the output buffer is filled with NaN (the recording ran nothing,
// so nothing else touches it yet); a replay that failed to write a score would then show.
// The host reads the scores only after waiting for the replay.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "fraud: %s (%s:%d)\n", cudaGetErrorString(e_),           \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

constexpr int kBatch = 256;
constexpr int kFeatures = 40;
constexpr int kHidden = 64;

__global__ void mlp_score(const float* __restrict__ x, const float* __restrict__ w1,
                          const float* __restrict__ w2, float* __restrict__ score) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= kBatch) return;
    float out = 0.0f;
    for (int h = 0; h < kHidden; ++h) {
        float acc = 0.0f;
        for (int f = 0; f < kFeatures; ++f) acc += x[b * kFeatures + f] * w1[f * kHidden + h];
        out += (acc > 0.0f ? acc : 0.0f) * w2[h];
    }
    score[b] = 1.0f / (1.0f + __expf(-out));
}

int main() {
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::vector<float> w1(kFeatures * kHidden), w2(kHidden);
    for (size_t i = 0; i < w1.size(); ++i) w1[i] = 0.05f * static_cast<float>(i % 9) - 0.2f;
    for (int h = 0; h < kHidden; ++h) w2[h] = 0.1f * ((h % 5) - 2);
    float *d_w1, *d_w2, *d_x, *d_score, *h_x, *h_score;
    CUDA_CHECK(cudaMalloc(&d_w1, kFeatures * kHidden * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w2, kHidden * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_w1, w1.data(), kFeatures * kHidden * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_w2, w2.data(), kHidden * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMalloc(&d_x, kBatch * kFeatures * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_score, kBatch * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_x, kBatch * kFeatures * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_score, kBatch * sizeof(float)));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, kBatch * kFeatures * sizeof(float), cudaMemcpyHostToDevice, stream));
    mlp_score<<<(kBatch + 127) / 128, 128, 0, stream>>>(d_x, d_w1, d_w2, d_score);
    CUDA_CHECK(cudaMemcpyAsync(h_score, d_score, kBatch * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    std::fill(h_score, h_score + kBatch, std::numeric_limits<float>::quiet_NaN());

    int flagged = 0, missing = 0;
    for (int batch = 0; batch < 400; ++batch) {
        for (int i = 0; i < kBatch * kFeatures; ++i) h_x[i] = 0.01f * ((i * 37 + batch * 11) % 300);
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int b = 0; b < kBatch; ++b) {
            if (std::isnan(h_score[b])) ++missing;
            else if (h_score[b] > 0.9f) ++flagged;
        }
    }
    std::printf("flagged %d transactions, %d scores missing\n", flagged, missing);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_score));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaFree(d_score));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_w2));
    CUDA_CHECK(cudaFree(d_w1));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
