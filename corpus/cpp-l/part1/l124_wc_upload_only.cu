// case: a batched tokenizer-to-embedding pipeline fills a write-combined pinned buffer with token ids using writes only (its intended use) and reads results from a separate cudaMallocHost buffer after synchronizing, so there is no write-combined read and no race.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "CUDA: %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
            std::exit(3);                                                        \
        }                                                                        \
    } while (0)

constexpr int kVocab = 30522;
constexpr int kDim = 128;
constexpr int kBatchTokens = 1 << 16;

__global__ void gather_norms(const float* table, const int* ids, float* norms, int ntok, int dim) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntok) return;
    const float* row = table + size_t(ids[t]) * dim;
    float acc = 0.f;
    for (int k = 0; k < dim; ++k) acc += row[k] * row[k];
    norms[t] = sqrtf(acc);
}

int main() {
    std::vector<float> table(size_t(kVocab) * kDim);
    for (size_t i = 0; i < table.size(); ++i) table[i] = float(i % 13) * 0.01f;
    std::vector<int> corpus(kBatchTokens * 4);
    for (size_t i = 0; i < corpus.size(); ++i) corpus[i] = int((i * 48271u) % kVocab);

    float* d_table;
    int* d_ids;
    float* d_norms;
    CUDA_CHECK(cudaMalloc(&d_table, table.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_ids, kBatchTokens * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_norms, kBatchTokens * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_table, table.data(), table.size() * sizeof(float), cudaMemcpyHostToDevice));

    int* h_ids_wc = nullptr;      // upload only: write-combined is the right choice
    float* h_norms = nullptr;     // readback: ordinary pinned memory
    CUDA_CHECK(cudaHostAlloc(&h_ids_wc, kBatchTokens * sizeof(int), cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaMallocHost(&h_norms, kBatchTokens * sizeof(float)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));

    double total = 0.0;
    for (int b = 0; b < 4; ++b) {
        const int* src = corpus.data() + size_t(b) * kBatchTokens;
        for (int t = 0; t < kBatchTokens; ++t) h_ids_wc[t] = src[t];
        CUDA_CHECK(cudaMemcpyAsync(d_ids, h_ids_wc, kBatchTokens * sizeof(int), cudaMemcpyHostToDevice, s));
        gather_norms<<<(kBatchTokens + 255) / 256, 256, 0, s>>>(d_table, d_ids, d_norms, kBatchTokens, kDim);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_norms, d_norms, kBatchTokens * sizeof(float), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        for (int t = 0; t < kBatchTokens; ++t) total += h_norms[t];
    }
    printf("mean embedding norm %.5f\n", total / (4.0 * kBatchTokens));

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFreeHost(h_ids_wc));
    CUDA_CHECK(cudaFreeHost(h_norms));
    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaFree(d_ids));
    CUDA_CHECK(cudaFree(d_norms));
    return 0;
}
