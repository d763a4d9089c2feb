// case: A vector-search scoring routine returns its status through a CUDA_TRY macro; the query buffer it cudaMallocs is freed on the success path only, so a failed upload or launch check returns early and loses it (device_memory_leak at the allocation); main frees its own buffers and exits with 1 on failure.
// expect: device_memory_leak=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_TRY(call)                                                             \
    do {                                                                           \
        cudaError_t status_ = (call);                                              \
        if (status_ != cudaSuccess) return status_;                                \
    } while (0)

constexpr int kDim = 128;

// scores[q * n + j] = <query q, index j>
__global__ void inner_product_scores(const float* __restrict__ index, int n,
                                     const float* __restrict__ queries, int nq,
                                     float* __restrict__ scores) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int q = blockIdx.y;
    if (j >= n || q >= nq) return;
    float acc = 0.0f;
    for (int d = 0; d < kDim; ++d) acc += index[size_t(j) * kDim + d] * queries[q * kDim + d];
    scores[size_t(q) * n + j] = acc;
}

cudaError_t score_batch(const float* d_index, int n, const std::vector<float>& queries,
                        float* d_scores) {
    const int nq = int(queries.size() / kDim);
    float* d_queries = nullptr;
    CUDA_TRY(cudaMalloc(&d_queries, queries.size() * sizeof(float)));  // EXPECT: device_memory_leak
    CUDA_TRY(cudaMemcpy(d_queries, queries.data(), queries.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 grid((n + 255) / 256, nq);
    inner_product_scores<<<grid, 256>>>(d_index, n, d_queries, nq, d_scores);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaDeviceSynchronize());

    return cudaFree(d_queries);
}

int main() {
    const int n = 100000, nq = 16;
    std::vector<float> index(size_t(n) * kDim), queries(size_t(nq) * kDim);
    for (size_t i = 0; i < index.size(); ++i) index[i] = float((i * 37) % 101) / 101.0f - 0.5f;
    for (size_t i = 0; i < queries.size(); ++i) queries[i] = float((i * 53) % 89) / 89.0f - 0.5f;

    float *d_index = nullptr, *d_scores = nullptr;
    if (cudaMalloc(&d_index, index.size() * sizeof(float)) != cudaSuccess) return 1;
    if (cudaMalloc(&d_scores, size_t(nq) * n * sizeof(float)) != cudaSuccess) {
        cudaFree(d_index);
        return 1;
    }
    if (cudaMemcpy(d_index, index.data(), index.size() * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
        std::fprintf(stderr, "upload failed\n");
        cudaFree(d_scores);
        cudaFree(d_index);
        return 1;
    }

    cudaError_t st = score_batch(d_index, n, queries, d_scores);
    if (st != cudaSuccess) {
        std::fprintf(stderr, "score_batch: %s\n", cudaGetErrorString(st));
        cudaFree(d_scores);
        cudaFree(d_index);
        return 1;
    }

    std::vector<float> scores(size_t(nq) * n);
    cudaError_t copy_st = cudaMemcpy(scores.data(), d_scores, scores.size() * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_scores);
    cudaFree(d_index);
    if (copy_st != cudaSuccess) return 1;

    int best = 0;
    for (int j = 1; j < n; ++j)
        if (scores[j] > scores[best]) best = j;
    std::printf("query 0: best match %d (score %.4f)\n", best, scores[best]);
    return 0;
}
