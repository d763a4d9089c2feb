// case: a staging pool allocates its host buffers write-combined for fast uploads and then reuses one as the destination of a result download, which the host reads back uncached
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void softmax_rows(const float* logits, float* probs, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float mx = -1e30f;
    for (int c = 0; c < cols; ++c) mx = fmaxf(mx, logits[r * cols + c]);
    float den = 0.f;
    for (int c = 0; c < cols; ++c) den += __expf(logits[r * cols + c] - mx);
    for (int c = 0; c < cols; ++c) probs[r * cols + c] = __expf(logits[r * cols + c] - mx) / den;
}

struct StagingPool {
    float* upload;
    float* download;
    size_t bytes;
    void init(size_t b) {
        bytes = b;
        CUDA_CHECK(cudaHostAlloc(&upload, bytes, cudaHostAllocWriteCombined));
        CUDA_CHECK(cudaHostAlloc(&download, bytes, cudaHostAllocWriteCombined));
    }
    void destroy() {
        CUDA_CHECK(cudaFreeHost(download));
        CUDA_CHECK(cudaFreeHost(upload));
    }
};

int main() {
    const int rows = 4096, cols = 1000;
    const size_t count = (size_t)rows * cols;
    StagingPool pool;
    pool.init(count * sizeof(float));

    for (size_t i = 0; i < count; ++i) pool.upload[i] = (float)(i % cols) * 0.001f;

    float *d_logits, *d_probs;
    CUDA_CHECK(cudaMalloc(&d_logits, pool.bytes));
    CUDA_CHECK(cudaMalloc(&d_probs, pool.bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_logits, pool.upload, pool.bytes, cudaMemcpyHostToDevice, s));
    softmax_rows<<<(rows + 127) / 128, 128, 0, s>>>(d_logits, d_probs, rows, cols);
    CUDA_CHECK(cudaMemcpyAsync(pool.download, d_probs, pool.bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    int argmax_hist[8] = {0};
    for (int r = 0; r < rows; ++r) {
        int best = 0;
        for (int c = 1; c < cols; ++c)
            if (pool.download[r * cols + c] > pool.download[r * cols + best]) best = c; // EXPECT: write_combined_host_read
        argmax_hist[best % 8]++;
    }
    printf("argmax buckets: %d %d %d %d\n", argmax_hist[0], argmax_hist[1], argmax_hist[2], argmax_hist[3]);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_probs));
    CUDA_CHECK(cudaFree(d_logits));
    pool.destroy();
    return 0;
}
