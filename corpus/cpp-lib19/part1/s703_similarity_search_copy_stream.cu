// Brute-force nearest-neighbour search over a table of L2-normalised embeddings:
// scores = E^T Q with cuBLAS on the compute stream, uploads and downloads on a copy stream
// so that the next query batch can be staged while the current one is scored.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUBLAS_CHECK(call)                                                        \
    do {                                                                          \
        cublasStatus_t st_ = (call);                                              \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                       \
            std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, \
                         static_cast<int>(st_));                                  \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

constexpr int kDim = 256;         // embedding width
constexpr int kTable = 65536;     // rows in the table
constexpr int kQueries = 64;      // queries per batch

__global__ void l2_normalise_columns(float* m, int dim, int cols) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;
    float* v = m + static_cast<size_t>(col) * dim;
    float sq = 0.f;
    for (int i = 0; i < dim; ++i) sq += v[i] * v[i];
    const float inv = rsqrtf(sq + 1e-12f);
    for (int i = 0; i < dim; ++i) v[i] *= inv;
}

int main() {
    const size_t table_elems = static_cast<size_t>(kDim) * kTable;
    const size_t query_elems = static_cast<size_t>(kDim) * kQueries;
    const size_t score_elems = static_cast<size_t>(kTable) * kQueries;

    cudaStream_t compute, copy;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    cudaEvent_t uploaded;
    CUDA_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

    cublasHandle_t blas;
    CUBLAS_CHECK(cublasCreate(&blas));
    CUBLAS_CHECK(cublasSetStream(blas, compute));

    float *h_table, *h_queries, *h_scores;
    CUDA_CHECK(cudaMallocHost(&h_table, table_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_queries, query_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_scores, score_elems * sizeof(float)));
    for (size_t i = 0; i < table_elems; ++i) h_table[i] = std::sin(0.11f * static_cast<float>(i % 10007));
    for (size_t i = 0; i < query_elems; ++i) h_queries[i] = std::cos(0.07f * static_cast<float>(i % 811));

    float *d_table, *d_queries, *d_scores;
    CUDA_CHECK(cudaMalloc(&d_table, table_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_queries, query_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_scores, score_elems * sizeof(float)));

    CUDA_CHECK(cudaMemcpyAsync(d_table, h_table, table_elems * sizeof(float), cudaMemcpyHostToDevice, copy));
    CUDA_CHECK(cudaMemcpyAsync(d_queries, h_queries, query_elems * sizeof(float), cudaMemcpyHostToDevice, copy));
    CUDA_CHECK(cudaEventRecord(uploaded, copy));
    CUDA_CHECK(cudaStreamWaitEvent(compute, uploaded, 0));

    l2_normalise_columns<<<(kTable + 127) / 128, 128, 0, compute>>>(d_table, kDim, kTable);
    CUDA_CHECK(cudaGetLastError());
    l2_normalise_columns<<<(kQueries + 127) / 128, 128, 0, compute>>>(d_queries, kDim, kQueries);
    CUDA_CHECK(cudaGetLastError());

    // scores (table x queries) = E^T (table x dim) * Q (dim x queries)
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, kTable, kQueries, kDim, &one,
                             d_table, kDim, d_queries, kDim, &zero, d_scores, kTable));

    CUDA_CHECK(cudaMemcpyAsync(h_scores, d_scores, score_elems * sizeof(float), cudaMemcpyDeviceToHost, copy));  // EXPECT: missing_sync
    CUDA_CHECK(cudaStreamSynchronize(copy));

    std::vector<int> best(kQueries, 0);
    for (int q = 0; q < kQueries; ++q) {
        const float* col = h_scores + static_cast<size_t>(q) * kTable;
        for (int r = 1; r < kTable; ++r)
            if (col[r] > col[best[q]]) best[q] = r;
    }
    std::printf("query 0 -> row %d, query %d -> row %d\n", best[0], kQueries - 1, best[kQueries - 1]);

    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaFree(d_scores));
    CUDA_CHECK(cudaFree(d_queries));
    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaFreeHost(h_scores));
    CUDA_CHECK(cudaFreeHost(h_queries));
    CUDA_CHECK(cudaFreeHost(h_table));
    CUBLAS_CHECK(cublasDestroy(blas));
    CUDA_CHECK(cudaEventDestroy(uploaded));
    CUDA_CHECK(cudaStreamDestroy(copy));
    CUDA_CHECK(cudaStreamDestroy(compute));
    return 0;
}
