// case: an uploader fills a pinned staging buffer, starts the async upload of the first layer, and refills the same staging buffer for the second layer before the first copy has finished
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t rc = (x); if (rc != cudaSuccess) { \
    fprintf(stderr, "cuda: %s (%s:%d)\n", cudaGetErrorString(rc), __FILE__, __LINE__); \
    exit(EXIT_FAILURE); } } while (0)

__global__ void relu_inplace(float* w, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n && w[i] < 0.f) w[i] = 0.f;
}

static void load_layer(float* dst, size_t n, int layer) {
    for (size_t i = 0; i < n; ++i) dst[i] = (float)((int)(i % 31) - 15) * 0.01f * (layer + 1);
}

int main() {
    const size_t per_layer = 8u << 20;
    const size_t bytes = per_layer * sizeof(float);
    cudaStream_t up;
    CUDA_CHECK(cudaStreamCreate(&up));

    float* staging = nullptr;
    CUDA_CHECK(cudaMallocHost(&staging, bytes));
    float *d_layer0 = nullptr, *d_layer1 = nullptr;
    CUDA_CHECK(cudaMalloc(&d_layer0, bytes));
    CUDA_CHECK(cudaMalloc(&d_layer1, bytes));

    load_layer(staging, per_layer, 0);
    CUDA_CHECK(cudaMemcpyAsync(d_layer0, staging, bytes, cudaMemcpyHostToDevice, up));

    std::fill(staging, staging + per_layer, 0.0f); // EXPECT: missing_sync
    load_layer(staging, per_layer, 1);
    CUDA_CHECK(cudaMemcpyAsync(d_layer1, staging, bytes, cudaMemcpyHostToDevice, up));

    unsigned blocks = (unsigned)((per_layer + 255) / 256);
    relu_inplace<<<blocks, 256, 0, up>>>(d_layer0, per_layer);
    relu_inplace<<<blocks, 256, 0, up>>>(d_layer1, per_layer);

    std::vector<float> check(per_layer);
    CUDA_CHECK(cudaStreamSynchronize(up));
    CUDA_CHECK(cudaMemcpy(check.data(), d_layer1, bytes, cudaMemcpyDeviceToHost));
    size_t zeros = std::count(check.begin(), check.end(), 0.0f);
    CUDA_CHECK(cudaMemcpy(check.data(), d_layer0, bytes, cudaMemcpyDeviceToHost));
    zeros += std::count(check.begin(), check.end(), 0.0f);
    printf("zeroed weights: %zu\n", zeros);

    CUDA_CHECK(cudaFree(d_layer1));
    CUDA_CHECK(cudaFree(d_layer0));
    CUDA_CHECK(cudaFreeHost(staging));
    CUDA_CHECK(cudaStreamDestroy(up));
    return 0;
}
