// case: each batch's scores are copied into its own slice of a pinned buffer and a cudaLaunchHostFunc callback enqueued behind the copy on the same stream summarizes that slice; stream order guarantees the copy finished before the callback runs, and main reads the callback results only after synchronizing the stream, so the code is correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)

constexpr int kBatches = 8;
constexpr int kPerBatch = 1 << 20;

struct BatchSummary {
    const float* scores;  // pinned slice written by the D2H copy
    int n;
    double mean;
    int above;
};

static void CUDART_CB summarize(void* user) {
    auto* b = static_cast<BatchSummary*>(user);
    double acc = 0.0;
    int above = 0;
    for (int i = 0; i < b->n; ++i) {
        acc += b->scores[i];
        if (b->scores[i] > 0.9f) ++above;
    }
    b->mean = acc / b->n;
    b->above = above;
}

__global__ void sigmoid_scores(const float* logits, float* scores, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scores[i] = 1.f / (1.f + __expf(-logits[i]));
}

int main() {
    const size_t total = size_t(kBatches) * kPerBatch;
    float *h_logits, *h_scores, *d_logits, *d_scores;
    CUDA_CHECK(cudaMallocHost(&h_logits, total * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_scores, total * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_logits, total * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_scores, total * sizeof(float)));
    for (size_t i = 0; i < total; ++i) h_logits[i] = float(int(i % 801) - 400) / 100.f;

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    std::vector<BatchSummary> summaries(kBatches);
    for (int b = 0; b < kBatches; ++b) {
        const size_t off = size_t(b) * kPerBatch;
        CUDA_CHECK(cudaMemcpyAsync(d_logits + off, h_logits + off, kPerBatch * sizeof(float),
                                   cudaMemcpyHostToDevice, s));
        sigmoid_scores<<<(kPerBatch + 255) / 256, 256, 0, s>>>(d_logits + off, d_scores + off, kPerBatch);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_scores + off, d_scores + off, kPerBatch * sizeof(float),
                                   cudaMemcpyDeviceToHost, s));
        summaries[b] = BatchSummary{h_scores + off, kPerBatch, 0.0, 0};
        CUDA_CHECK(cudaLaunchHostFunc(s, summarize, &summaries[b]));
    }

    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int b = 0; b < kBatches; ++b)
        printf("batch %d: mean %.4f, %d above 0.9\n", b, summaries[b].mean, summaries[b].above);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_scores));
    CUDA_CHECK(cudaFreeHost(h_logits));
    CUDA_CHECK(cudaFreeHost(h_scores));
    return 0;
}
