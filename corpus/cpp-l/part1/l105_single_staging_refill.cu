// case: a chunked upload pipeline copies each chunk of a host matrix into one pinned staging buffer and enqueues an async H2D plus a kernel per chunk, but never waits before refilling the staging buffer for the next chunk, so the host memcpy overwrites data the previous H2D copy may still be reading.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                 \
    do {                                                                         \
        cudaError_t rc = (call);                                                 \
        if (rc != cudaSuccess) {                                                 \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorName(rc)); \
            return EXIT_FAILURE;                                                 \
        }                                                                        \
    } while (0)

constexpr size_t kRows = 1 << 15;
constexpr size_t kCols = 512;
constexpr size_t kRowsPerChunk = 4096;
constexpr size_t kChunkElems = kRowsPerChunk * kCols;
constexpr size_t kChunkBytes = kChunkElems * sizeof(float);

__global__ void standardize(float* x, size_t n, float mu, float inv_sigma) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) x[i] = (x[i] - mu) * inv_sigma;
}

int main() {
    const size_t total = kRows * kCols;
    std::vector<float> features(total);
    for (size_t i = 0; i < total; ++i) features[i] = float(i % 1024) * 0.5f;

    float* d_features = nullptr;
    float* h_staging = nullptr;
    float* h_result = nullptr;
    CK(cudaMalloc(&d_features, total * sizeof(float)));
    CK(cudaMallocHost(&h_staging, kChunkBytes));
    CK(cudaMallocHost(&h_result, total * sizeof(float)));

    cudaStream_t upload;
    CK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));

    const unsigned blocks = unsigned((kChunkElems + 255) / 256);
    for (size_t off = 0; off < total; off += kChunkElems) {
        std::memcpy(h_staging, features.data() + off, kChunkBytes); // EXPECT: missing_sync
        CK(cudaMemcpyAsync(d_features + off, h_staging, kChunkBytes, cudaMemcpyHostToDevice, upload));
        standardize<<<blocks, 256, 0, upload>>>(d_features + off, kChunkElems, 255.75f, 1.f / 147.8f);
        CK(cudaGetLastError());
    }
    CK(cudaMemcpyAsync(h_result, d_features, total * sizeof(float), cudaMemcpyDeviceToHost, upload));
    CK(cudaStreamSynchronize(upload));

    double acc = 0.0;
    for (size_t i = 0; i < total; ++i) acc += h_result[i];
    printf("mean of standardized features: %.5f\n", acc / double(total));

    CK(cudaStreamDestroy(upload));
    CK(cudaFree(d_features));
    CK(cudaFreeHost(h_staging));
    CK(cudaFreeHost(h_result));
    return 0;
}
