// case: a database group-by aggregation copies per-group counts into pinned memory asynchronously and only synchronizes inside the `if (opts.profile)` timing block, so the non-profiling path sums the counts while the copy may still run.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <numeric>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t s_ = (call); if (s_ != cudaSuccess) { \
    fprintf(stderr, "cuda error %d (%s) at %s:%d\n", (int)s_, cudaGetErrorString(s_), __FILE__, __LINE__); \
    exit(3); } } while (0)

struct QueryOptions {
    bool profile = false;
    int  num_groups = 1024;
};

__global__ void group_count(const int32_t* keys, size_t n, unsigned long long* counts, int groups) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&counts[(unsigned)keys[i] % groups], 1ull);
}

static unsigned long long run_groupby(const int32_t* d_keys, size_t n, const QueryOptions& opts,
                                      cudaStream_t stream) {
    if (n == 0 || opts.num_groups <= 0) return 0;   // empty table: nothing to aggregate
    const size_t cbytes = opts.num_groups * sizeof(unsigned long long);
    unsigned long long* d_counts = nullptr;
    unsigned long long* h_counts = nullptr;
    CUDA_CHECK(cudaMalloc(&d_counts, cbytes));
    CUDA_CHECK(cudaMallocHost(&h_counts, cbytes));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    CUDA_CHECK(cudaEventRecord(start, stream));
    CUDA_CHECK(cudaMemsetAsync(d_counts, 0, cbytes, stream));
    group_count<<<264, 512, 0, stream>>>(d_keys, n, d_counts, opts.num_groups);
    CUDA_CHECK(cudaMemcpyAsync(h_counts, d_counts, cbytes, cudaMemcpyDeviceToHost, stream));

    if (opts.profile) {
        CUDA_CHECK(cudaEventRecord(stop, stream));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        fprintf(stderr, "group-by: %.3f ms\n", ms);
    }

    unsigned long long total = std::accumulate(h_counts, h_counts + opts.num_groups, 0ull);

    CUDA_CHECK(cudaStreamSynchronize(stream));
    cudaEventDestroy(stop);
    cudaEventDestroy(start);
    cudaFreeHost(h_counts);
    cudaFree(d_counts);
    return total;
}

int main(int argc, char** argv) {
    QueryOptions opts;
    opts.profile = argc > 1;
    const size_t n = 50'000'000;
    std::vector<int32_t> keys(n);
    for (size_t i = 0; i < n; ++i) keys[i] = (int32_t)((i * 2654435761ull) & 0x7fffffff);

    int32_t* d_keys = nullptr;
    CUDA_CHECK(cudaMalloc(&d_keys, n * sizeof(int32_t)));
    CUDA_CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    unsigned long long rows = run_groupby(d_keys, n, opts, stream);
    printf("aggregated %llu rows into %d groups\n", rows, opts.num_groups);

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_keys));
    return 0;
}
