// case: attention scores live in managed memory, are prefetched to the GPU, normalized in place by a kernel on a stream and prefetched back to the CPU; the host picks the per-row argmax right after enqueuing the prefetch, while the kernel that writes the scores may still run (a prefetch is asynchronous too).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e));    \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

constexpr int kRows = 2048;
constexpr int kCols = 2048;

__global__ void normalize_rows(float* s, int cols) {
    __shared__ float sh[256];
    float* row = s + size_t(blockIdx.x) * cols;
    float acc = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += fabsf(row[c]);
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
        __syncthreads();
    }
    const float inv = 1.f / (sh[0] + 1e-12f);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] *= inv;
}

int main() {
    int dev = 0;
    CUDA_CHECK(cudaSetDevice(dev));
    const size_t n = size_t(kRows) * kCols;
    const size_t bytes = n * sizeof(float);

    float* scores = nullptr;
    CUDA_CHECK(cudaMallocManaged(&scores, bytes));
    for (size_t i = 0; i < n; ++i) scores[i] = float((i * 2246822519u) % 1000);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemPrefetchAsync(scores, bytes, dev, s));
    normalize_rows<<<kRows, 256, 0, s>>>(scores, kCols);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemPrefetchAsync(scores, bytes, cudaCpuDeviceId, s));

    long long argmax_sum = 0;
    for (int r = 0; r < kRows; ++r) {
        int best = 0;
        for (int c = 1; c < kCols; ++c) {
            if (scores[size_t(r) * kCols + c] > scores[size_t(r) * kCols + best]) best = c; // EXPECT: missing_sync
        }
        argmax_sum += best;
    }
    printf("argmax checksum %lld\n", argmax_sum);

    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(scores));
    return 0;
}
