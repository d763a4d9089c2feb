// One decoding step of a tiny language model served from a CUDA graph. The step's three
// inputs (token ids, positions, attention mask) are staged in pinned memory and uploaded with
// a single batched copy, then an embedding gather and a projection to the vocabulary run and
// the logits come back to pinned memory for sampling.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t err__ = (call);                                                        \
        if (err__ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call,           \
                         cudaGetErrorString(err__));                                       \
            std::exit(EXIT_FAILURE);                                                       \
        }                                                                                  \
    } while (0)

constexpr int kSeqs = 32;    // sequences decoded together
constexpr int kDim = 256;    // model width
constexpr int kVocab = 8192;

__global__ void embed(const int* __restrict__ tokens, const int* __restrict__ positions,
                      const float* __restrict__ mask, const float* __restrict__ table,
                      float* __restrict__ hidden, int dim) {
    int s = blockIdx.x;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) {
        float pos = positions[s] * 1.0e-3f * (d + 1);
        hidden[s * dim + d] = mask[s] * (table[static_cast<size_t>(tokens[s]) * dim + d] + __sinf(pos));
    }
}

__global__ void project(const float* __restrict__ hidden, const float* __restrict__ table,
                        float* __restrict__ logits, int dim, int vocab) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    int s = blockIdx.y;
    if (v >= vocab) return;
    float acc = 0.0f;
    for (int d = 0; d < dim; ++d) acc += hidden[s * dim + d] * table[static_cast<size_t>(v) * dim + d];
    logits[static_cast<size_t>(s) * vocab + v] = acc;
}

struct StepInputs {
    int* tokens;
    int* positions;
    float* mask;
};

int main() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::vector<float> table(static_cast<size_t>(kVocab) * kDim);
    for (size_t i = 0; i < table.size(); ++i) table[i] = 0.02f * static_cast<float>((i * 2654435761u) % 1000) / 1000.0f - 0.01f;
    float* d_table;
    CUDA_CHECK(cudaMalloc(&d_table, table.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_table, table.data(), table.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());

    StepInputs host{}, dev{};
    CUDA_CHECK(cudaMallocHost(&host.tokens, kSeqs * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&host.positions, kSeqs * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&host.mask, kSeqs * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dev.tokens, kSeqs * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&dev.positions, kSeqs * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&dev.mask, kSeqs * sizeof(float)));
    float *d_hidden, *d_logits, *h_logits;
    const size_t logits_bytes = sizeof(float) * kSeqs * kVocab;
    CUDA_CHECK(cudaMalloc(&d_hidden, sizeof(float) * kSeqs * kDim));
    CUDA_CHECK(cudaMalloc(&d_logits, logits_bytes));
    CUDA_CHECK(cudaMallocHost(&h_logits, logits_bytes));

    void* dsts[3] = {dev.tokens, dev.positions, dev.mask};
    void* srcs[3] = {host.tokens, host.positions, host.mask};
    size_t sizes[3] = {kSeqs * sizeof(int), kSeqs * sizeof(int), kSeqs * sizeof(float)};
    cudaMemcpyAttributes attr{};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.srcLocHint.type = cudaMemLocationTypeHost;
    attr.dstLocHint.type = cudaMemLocationTypeDevice;
    attr.dstLocHint.id = device;
    size_t attr_idx = 0;
    size_t fail_idx = 0;

    cudaGraph_t graph;
    cudaGraphExec_t step_exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, &attr_idx, 1, &fail_idx, stream));  // EXPECT: uncapturable_call
    embed<<<kSeqs, 128, 0, stream>>>(dev.tokens, dev.positions, dev.mask, d_table, d_hidden, kDim);
    CUDA_CHECK(cudaGetLastError());
    project<<<dim3((kVocab + 255) / 256, kSeqs), 256, 0, stream>>>(d_hidden, d_table, d_logits, kDim, kVocab);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_logits, d_logits, logits_bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&step_exec, graph, 0));

    for (int s = 0; s < kSeqs; ++s) {
        host.tokens[s] = (s * 131) % kVocab;
        host.positions[s] = 0;
        host.mask[s] = 1.0f;
    }
    for (int step = 0; step < 64; ++step) {
        CUDA_CHECK(cudaGraphLaunch(step_exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int s = 0; s < kSeqs; ++s) {  // greedy sampling
            const float* row = h_logits + static_cast<size_t>(s) * kVocab;
            int best = 0;
            for (int v = 1; v < kVocab; ++v) best = row[v] > row[best] ? v : best;
            host.tokens[s] = best;
            host.positions[s] = step + 1;
        }
    }
    std::printf("last token of sequence 0: %d\n", host.tokens[0]);

    CUDA_CHECK(cudaGraphExecDestroy(step_exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_logits));
    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_hidden));
    CUDA_CHECK(cudaFree(dev.mask));
    CUDA_CHECK(cudaFree(dev.positions));
    CUDA_CHECK(cudaFree(dev.tokens));
    CUDA_CHECK(cudaFreeHost(host.mask));
    CUDA_CHECK(cudaFreeHost(host.positions));
    CUDA_CHECK(cudaFreeHost(host.tokens));
    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
