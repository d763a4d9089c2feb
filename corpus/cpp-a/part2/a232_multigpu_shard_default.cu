// case: multi-GPU data-parallel loader splits a feature matrix held in a new[] array into per-device shards and uploads each shard with cudaMemcpyAsync(cudaMemcpyDefault) on that device's stream (pageable host side), then all-gathers partial sums with cudaMemcpyPeerAsync into device 0
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void column_sums(const float* x, int rows, int cols, float* sums) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float acc = 0.f;
    for (int r = 0; r < rows; ++r) acc += x[(size_t)r * cols + c];
    sums[c] = acc;
}

struct DeviceSlot {
    int device;
    cudaStream_t stream;
    float* d_shard;
    float* d_sums;
};

int main() {
    int ndev = 0;
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    if (ndev < 1) return 0;
    const int rows = 1 << 16, cols = 256;
    const int rows_per_dev = rows / ndev;

    std::unique_ptr<float[]> features(new float[(size_t)rows * cols]);
    for (size_t i = 0; i < (size_t)rows * cols; ++i) features[i] = 1.0f / (1 + (i % 13));

    std::vector<DeviceSlot> slots(ndev);
    for (int g = 0; g < ndev; ++g) {
        DeviceSlot& sl = slots[g];
        sl.device = g;
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaStreamCreateWithFlags(&sl.stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&sl.d_shard, (size_t)rows_per_dev * cols * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&sl.d_sums, cols * sizeof(float)));
    }

    for (int g = 0; g < ndev; ++g) {
        DeviceSlot& sl = slots[g];
        CUDA_CHECK(cudaSetDevice(sl.device));
        const float* host_shard = features.get() + (size_t)g * rows_per_dev * cols;
        CUDA_CHECK(cudaMemcpyAsync(sl.d_shard, host_shard, (size_t)rows_per_dev * cols * sizeof(float), cudaMemcpyDefault, sl.stream)); // EXPECT: pageable_async_copy
        column_sums<<<(cols + 127) / 128, 128, 0, sl.stream>>>(sl.d_shard, rows_per_dev, cols, sl.d_sums);
    }

    // gather partial sums on device 0
    CUDA_CHECK(cudaSetDevice(0));
    float* d_gather = nullptr;
    float* h_gather = nullptr;
    CUDA_CHECK(cudaMalloc(&d_gather, (size_t)ndev * cols * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_gather, (size_t)ndev * cols * sizeof(float)));
    for (int g = 0; g < ndev; ++g) {
        CUDA_CHECK(cudaMemcpyPeerAsync(d_gather + (size_t)g * cols, 0, slots[g].d_sums, g, cols * sizeof(float), slots[g].stream));
    }
    for (int g = 0; g < ndev; ++g) CUDA_CHECK(cudaStreamSynchronize(slots[g].stream));
    CUDA_CHECK(cudaMemcpy(h_gather, d_gather, (size_t)ndev * cols * sizeof(float), cudaMemcpyDeviceToHost));

    float col0 = 0.f;
    for (int g = 0; g < ndev; ++g) col0 += h_gather[(size_t)g * cols];
    std::printf("column 0 sum %f\n", col0);

    for (DeviceSlot& sl : slots) {
        CUDA_CHECK(cudaSetDevice(sl.device));
        cudaFree(sl.d_shard);
        cudaFree(sl.d_sums);
        cudaStreamDestroy(sl.stream);
    }
    CUDA_CHECK(cudaSetDevice(0));
    cudaFree(d_gather);
    cudaFreeHost(h_gather);
    return 0;
}
