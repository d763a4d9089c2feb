// case: a feature-ingestion job page-locks one std::vector with cudaHostRegister and, for each of its 4 shards, overwrites it with the next shard while the previous shard's async upload from it may still be reading (the only wait is after the loop)
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(x)                                                                     \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "ingest: %s: %s\n", #x, cudaGetErrorString(e_));         \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

constexpr int kShards = 4;
constexpr int kRows = 1 << 16;
constexpr int kCols = 64;

// z-score normalisation with running statistics, one thread per feature column.
__global__ void accumulate_stats(const float* rows, int n_rows, double* sum, double* sumsq) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= kCols) return;
    double s = 0.0, q = 0.0;
    for (int r = 0; r < n_rows; ++r) {
        float v = rows[(size_t)r * kCols + c];
        s += v;
        q += (double)v * v;
    }
    sum[c] += s;
    sumsq[c] += q;
}

// Stand-in for the Parquet reader.
static std::vector<float> read_shard(int shard) {
    std::vector<float> v((size_t)kRows * kCols);
    for (size_t i = 0; i < v.size(); ++i) v[i] = (float)((i * 131 + shard * 17) % 1000) * 0.01f;
    return v;
}

int main() {
    std::vector<float> staging((size_t)kRows * kCols);
    const size_t bytes = staging.size() * sizeof(float);
    CUDA_CHECK(cudaHostRegister(staging.data(), bytes, cudaHostRegisterDefault));

    float* d_rows = nullptr;
    double *d_sum = nullptr, *d_sumsq = nullptr;
    CUDA_CHECK(cudaMalloc(&d_rows, bytes));
    CUDA_CHECK(cudaMalloc(&d_sum, kCols * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&d_sumsq, kCols * sizeof(double)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, kCols * sizeof(double), s));
    CUDA_CHECK(cudaMemsetAsync(d_sumsq, 0, kCols * sizeof(double), s));

    for (int shard = 0; shard < kShards; ++shard) {
        std::vector<float> rows = read_shard(shard);
        std::memcpy(staging.data(), rows.data(), bytes); // EXPECT: missing_sync
        CUDA_CHECK(cudaMemcpyAsync(d_rows, staging.data(), bytes, cudaMemcpyHostToDevice, s));
        accumulate_stats<<<1, kCols, 0, s>>>(d_rows, kRows, d_sum, d_sumsq);
    }
    CUDA_CHECK(cudaStreamSynchronize(s));

    double sum[kCols], sumsq[kCols];
    CUDA_CHECK(cudaMemcpy(sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(sumsq, d_sumsq, sizeof(sumsq), cudaMemcpyDeviceToHost));
    const double n = (double)kRows * kShards;
    double worst = 0.0;
    for (int c = 0; c < kCols; ++c) worst = std::max(worst, sumsq[c] / n - (sum[c] / n) * (sum[c] / n));
    std::printf("max feature variance %.4f\n", worst);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_sumsq));
    CUDA_CHECK(cudaFree(d_sum));
    CUDA_CHECK(cudaFree(d_rows));
    CUDA_CHECK(cudaHostUnregister(staging.data()));
    return 0;
}
