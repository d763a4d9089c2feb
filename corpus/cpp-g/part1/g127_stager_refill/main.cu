// case: A batch loop feeds a single-buffered Stager (header): each upload() memcpy's the next batch into the pinned staging buffer while the previous batch's cudaMemcpyAsync from it may still be running, since nothing waits on the stream between batches.
// expect: missing_sync=1
#include <vector>
#include "stager.h"

constexpr int kBatches = 16;
constexpr size_t kBatchElems = size_t(1) << 20;

__global__ void accumulate_batch(const float* in, float* acc, size_t n) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) acc[i] += in[i];
}

int main() {
    std::vector<float> dataset(kBatches * kBatchElems);
    for (size_t i = 0; i < dataset.size(); ++i) dataset[i] = float(i % 17);

    Stager stager(kBatchElems);
    float* d_acc = nullptr;
    float* h_acc = nullptr;
    CUDA_TRY(cudaMalloc(&d_acc, kBatchElems * sizeof(float)));
    CUDA_TRY(cudaMallocHost(&h_acc, kBatchElems * sizeof(float)));
    CUDA_TRY(cudaMemsetAsync(d_acc, 0, kBatchElems * sizeof(float), stager.stream()));

    const unsigned grid = unsigned((kBatchElems + 255) / 256);
    for (int b = 0; b < kBatches; ++b) {
        stager.upload(dataset.data() + b * kBatchElems);
        accumulate_batch<<<grid, 256, 0, stager.stream()>>>(stager.device(), d_acc, kBatchElems);
        CUDA_TRY(cudaGetLastError());
    }

    CUDA_TRY(cudaMemcpyAsync(h_acc, d_acc, kBatchElems * sizeof(float),
                             cudaMemcpyDeviceToHost, stager.stream()));
    CUDA_TRY(cudaStreamSynchronize(stager.stream()));
    double total = 0.0;
    for (size_t i = 0; i < kBatchElems; ++i) total += h_acc[i];
    std::printf("accumulated %.0f\n", total);

    CUDA_TRY(cudaFreeHost(h_acc));
    CUDA_TRY(cudaFree(d_acc));
    return 0;
}
