// Intent classifier of a voice assistant: each utterance's token ids go through a pinned
// staging buffer into a recorded graph (mean-pooled embeddings, a linear head, softmax) whose
// probabilities come back into pinned memory.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "intent: %s (%s:%d)\n", cudaGetErrorString(e_),          \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

constexpr int kMaxTokens = 64;
constexpr int kVocab = 30000;
constexpr int kDim = 128;
constexpr int kIntents = 24;

__global__ void mean_pool(const int* __restrict__ ids, const float* __restrict__ emb,
                          float* __restrict__ pooled) {
    int d = threadIdx.x;
    float acc = 0.0f;
    int n = 0;
    for (int t = 0; t < kMaxTokens; ++t) {
        int id = ids[t];
        if (id < 0) break;  // -1 terminates the utterance
        acc += emb[static_cast<size_t>(id) * kDim + d];
        ++n;
    }
    pooled[d] = n ? acc / n : 0.0f;
}

__global__ void head_softmax(const float* __restrict__ pooled, const float* __restrict__ w,
                             float* __restrict__ probs) {
    __shared__ float logits[kIntents];
    __shared__ float total;
    int k = threadIdx.x;
    float acc = 0.0f;
    for (int d = 0; d < kDim; ++d) acc += pooled[d] * w[d * kIntents + k];
    logits[k] = __expf(acc);
    __syncthreads();
    if (k == 0) {
        total = 0.0f;
        for (int j = 0; j < kIntents; ++j) total += logits[j];
    }
    __syncthreads();
    probs[k] = logits[k] / total;
}

static void tokenize(int utterance, int* ids) {
    int len = 5 + utterance % 20;
    for (int t = 0; t < kMaxTokens; ++t) ids[t] = t < len ? (utterance * 977 + t * 131) % kVocab : -1;
}

int main() {
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::vector<float> emb(static_cast<size_t>(kVocab) * kDim), head(kDim * kIntents);
    for (size_t i = 0; i < emb.size(); ++i) emb[i] = 0.001f * static_cast<float>((i * 2654435761u) % 2001) - 1.0f;
    for (size_t i = 0; i < head.size(); ++i) head[i] = 0.02f * static_cast<float>(i % 11) - 0.1f;
    float *d_emb, *d_head, *d_pooled, *d_probs, *h_probs;
    int *h_ids, *d_ids;
    CUDA_CHECK(cudaMalloc(&d_emb, emb.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_head, head.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_emb, emb.data(), emb.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_head, head.data(), head.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMalloc(&d_pooled, kDim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_probs, kIntents * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_ids, kMaxTokens * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_ids, kMaxTokens * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_probs, kIntents * sizeof(float)));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_ids, h_ids, kMaxTokens * sizeof(int), cudaMemcpyHostToDevice, stream));
    mean_pool<<<1, kDim, 0, stream>>>(d_ids, d_emb, d_pooled);
    head_softmax<<<1, kIntents, 0, stream>>>(d_pooled, d_head, d_probs);
    CUDA_CHECK(cudaMemcpyAsync(h_probs, d_probs, kIntents * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    int counts[kIntents] = {0};
    int unsure = 0;
    for (int utterance = 0; utterance < 1000; ++utterance) {
        tokenize(utterance, h_ids);
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        int intent = 0;
        for (int k = 1; k < kIntents; ++k) {
            if (h_probs[k] > h_probs[intent]) intent = k;  // EXPECT: missing_sync
        }
        // Wait before the next utterance overwrites the token staging buffer.
        CUDA_CHECK(cudaStreamSynchronize(stream));
        if (h_probs[intent] < 0.2f) ++unsure;
        ++counts[intent];
    }
    std::printf("intent 0: %d, unsure: %d\n", counts[0], unsure);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_probs));
    CUDA_CHECK(cudaFreeHost(h_ids));
    CUDA_CHECK(cudaFree(d_ids));
    CUDA_CHECK(cudaFree(d_probs));
    CUDA_CHECK(cudaFree(d_pooled));
    CUDA_CHECK(cudaFree(d_head));
    CUDA_CHECK(cudaFree(d_emb));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
