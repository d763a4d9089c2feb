// case: top-k search service reads its result ids through download_blocking() (device_io.cu: cudaMemcpyAsync then cudaStreamSynchronize on the same stream) into memory from pinned_alloc() (cudaMallocHost), released by pinned_free() (cudaFreeHost): near-miss, the helper always synchronizes before returning and every buffer goes back to its allocator
// expect: none
#include "device_io.h"
#include <cstdio>
#include <cstdlib>
#include <cstdint>

__global__ void brute_force_top1(const float* db, const float* queries, int n_db, int n_q, int dim, int32_t* best_ids) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n_q) return;
    float best = -1e30f;
    int32_t arg = -1;
    for (int i = 0; i < n_db; ++i) {
        float s = 0.f;
        for (int d = 0; d < dim; ++d) s += db[(size_t)i * dim + d] * queries[(size_t)q * dim + d];
        if (s > best) { best = s; arg = i; }
    }
    best_ids[q] = arg;
}

int main() {
    const int n_db = 100000, n_q = 1 << 16, dim = 32;
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return 1;

    float* d_db = nullptr;
    float* d_q = nullptr;
    int32_t* d_ids = nullptr;
    cudaMalloc(&d_db, (size_t)n_db * dim * sizeof(float));
    cudaMalloc(&d_q, (size_t)n_q * dim * sizeof(float));
    cudaMalloc(&d_ids, n_q * sizeof(int32_t));
    cudaMemsetAsync(d_db, 0, (size_t)n_db * dim * sizeof(float), s);
    cudaMemsetAsync(d_q, 0, (size_t)n_q * dim * sizeof(float), s);

    int32_t* h_ids = static_cast<int32_t*>(pinned_alloc(n_q * sizeof(int32_t)));
    if (!h_ids) return 1;

    brute_force_top1<<<(n_q + 127) / 128, 128, 0, s>>>(d_db, d_q, n_db, n_q, dim, d_ids);
    if (download_blocking(h_ids, d_ids, n_q * sizeof(int32_t), s) != cudaSuccess) {
        std::fprintf(stderr, "download failed\n");
        return 1;
    }

    long misses = 0;
    for (int q = 0; q < n_q; ++q) misses += h_ids[q] < 0;
    std::printf("queries without a hit: %ld\n", misses);

    pinned_free(h_ids);
    cudaFree(d_ids);
    cudaFree(d_q);
    cudaFree(d_db);
    cudaStreamDestroy(s);
    return 0;
}
