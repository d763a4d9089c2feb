// case: an embedding-bag forward pass runs on a non-blocking stream from the layer's pool, and the debug dump reads the output with a plain cudaMemcpy on the legacy default stream, which does not wait for non-blocking streams, so the copy can read the output before the kernel wrote it.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(expr)                                                         \
    do {                                                                         \
        cudaError_t status_ = (expr);                                            \
        if (status_ != cudaSuccess) {                                            \
            fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(status_)); \
            return 1;                                                            \
        }                                                                        \
    } while (0)

constexpr int kVocab = 50000;
constexpr int kDim = 256;
constexpr int kBags = 2048;
constexpr int kPerBag = 16;

__global__ void embedding_bag_mean(const float* __restrict__ table, const int* __restrict__ idx,
                                   float* __restrict__ out, int per_bag, int dim) {
    const int bag = blockIdx.x;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) {
        float acc = 0.f;
        for (int k = 0; k < per_bag; ++k) acc += table[size_t(idx[bag * per_bag + k]) * dim + d];
        out[size_t(bag) * dim + d] = acc / per_bag;
    }
}

int main() {
    std::vector<float> h_table(size_t(kVocab) * kDim);
    for (size_t i = 0; i < h_table.size(); ++i) h_table[i] = float(i % 97) * 0.01f;
    std::vector<int> h_idx(kBags * kPerBag);
    for (size_t i = 0; i < h_idx.size(); ++i) h_idx[i] = int((i * 7919u) % kVocab);

    float *d_table, *d_out;
    int* d_idx;
    int* h_idx_pinned;
    float* h_out;
    const size_t table_bytes = h_table.size() * sizeof(float);
    const size_t idx_bytes = h_idx.size() * sizeof(int);
    const size_t out_bytes = size_t(kBags) * kDim * sizeof(float);
    CHECK_CUDA(cudaMalloc(&d_table, table_bytes));
    CHECK_CUDA(cudaMalloc(&d_idx, idx_bytes));
    CHECK_CUDA(cudaMalloc(&d_out, out_bytes));
    CHECK_CUDA(cudaMallocHost(&h_idx_pinned, idx_bytes));
    CHECK_CUDA(cudaMallocHost(&h_out, out_bytes));

    // weights are uploaded once, synchronously
    CHECK_CUDA(cudaMemcpy(d_table, h_table.data(), table_bytes, cudaMemcpyHostToDevice));
    for (size_t i = 0; i < h_idx.size(); ++i) h_idx_pinned[i] = h_idx[i];
    CHECK_CUDA(cudaDeviceSynchronize()); // the pageable upload may still be in its DMA

    cudaStream_t layer_stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&layer_stream, cudaStreamNonBlocking));

    CHECK_CUDA(cudaMemcpyAsync(d_idx, h_idx_pinned, idx_bytes, cudaMemcpyHostToDevice, layer_stream));
    embedding_bag_mean<<<kBags, 128, 0, layer_stream>>>(d_table, d_idx, d_out, kPerBag, kDim);
    CHECK_CUDA(cudaGetLastError());

    // debug dump of the first bags
    CHECK_CUDA(cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost)); // EXPECT: missing_sync
    for (int b = 0; b < 4; ++b) printf("bag %d: %.4f %.4f\n", b, h_out[b * kDim], h_out[b * kDim + 1]);

    CHECK_CUDA(cudaStreamSynchronize(layer_stream));
    CHECK_CUDA(cudaStreamDestroy(layer_stream));
    CHECK_CUDA(cudaFree(d_table));
    CHECK_CUDA(cudaFree(d_idx));
    CHECK_CUDA(cudaFree(d_out));
    CHECK_CUDA(cudaFreeHost(h_idx_pinned));
    CHECK_CUDA(cudaFreeHost(h_out));
    return 0;
}
