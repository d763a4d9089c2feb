// case: embedding-table loader fills a write-combined cudaHostAlloc staging buffer with streaming host writes and uploads it chunk by chunk; the verification readback goes to a separate cudaMallocHost buffer: near-miss, the write-combined memory is only ever written by the host
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void row_norms(const float* table, int rows, int dim, float* norms) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int d = 0; d < dim; ++d) acc += table[(size_t)r * dim + d] * table[(size_t)r * dim + d];
    norms[r] = sqrtf(acc);
}

int main() {
    const int rows = 1 << 18, dim = 64;
    const int rows_per_chunk = 1 << 14;
    const size_t chunk_bytes = (size_t)rows_per_chunk * dim * sizeof(float);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    float* wc_stage = nullptr;  // write-only from the host
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&wc_stage), chunk_bytes, cudaHostAllocWriteCombined));
    float* h_norms = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_norms, rows * sizeof(float)));
    float* d_table = nullptr;
    float* d_norms = nullptr;
    CUDA_CHECK(cudaMalloc(&d_table, (size_t)rows * dim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_norms, rows * sizeof(float)));

    for (int c = 0; c < rows / rows_per_chunk; ++c) {
        // the previous chunk's upload reads wc_stage: wait before overwriting it
        CUDA_CHECK(cudaStreamSynchronize(s));
        for (int r = 0; r < rows_per_chunk; ++r) {
            const int global_row = c * rows_per_chunk + r;
            for (int d = 0; d < dim; ++d)
                wc_stage[(size_t)r * dim + d] = std::sin(0.001f * global_row + d);
        }
        CUDA_CHECK(cudaMemcpyAsync(d_table + (size_t)c * rows_per_chunk * dim, wc_stage, chunk_bytes,
                                   cudaMemcpyHostToDevice, s));
    }
    row_norms<<<(rows + 255) / 256, 256, 0, s>>>(d_table, rows, dim, d_norms);
    CUDA_CHECK(cudaMemcpyAsync(h_norms, d_norms, rows * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    double mean = 0.0;
    for (int r = 0; r < rows; ++r) mean += h_norms[r];
    std::printf("mean row norm %.4f\n", mean / rows);

    CUDA_CHECK(cudaFreeHost(wc_stage));
    CUDA_CHECK(cudaFreeHost(h_norms));
    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaFree(d_norms));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
