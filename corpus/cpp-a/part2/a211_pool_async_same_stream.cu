// case: group-by aggregation takes its scratch space from the stream-ordered pool (cudaMallocAsync) and returns it with cudaFreeAsync on the same stream right after the kernels, then reads pinned results after the sync: near-miss, stream order covers the free and the read
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t s_ = (x);                                                  \
        if (s_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void scatter_groups(const uint32_t* keys, const float* vals, size_t n, uint32_t groups,
                               float* scratch_sum, unsigned int* scratch_cnt) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t g = keys[i] % groups;
    atomicAdd(&scratch_sum[g], vals[i]);
    atomicAdd(&scratch_cnt[g], 1u);
}

__global__ void finalize_mean(const float* scratch_sum, const unsigned int* scratch_cnt, float* mean, uint32_t groups) {
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < groups) mean[g] = scratch_cnt[g] ? scratch_sum[g] / scratch_cnt[g] : 0.f;
}

struct GroupByPlan {
    cudaStream_t stream;
    cudaMemPool_t pool;
    uint32_t groups;
};

static void group_mean(const GroupByPlan& plan, const uint32_t* d_keys, const float* d_vals, size_t n,
                       float* d_mean) {
    float* scratch_sum = nullptr;
    unsigned int* scratch_cnt = nullptr;
    CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&scratch_sum), plan.groups * sizeof(float), plan.pool, plan.stream));
    CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&scratch_cnt), plan.groups * sizeof(unsigned int), plan.stream));
    CUDA_CHECK(cudaMemsetAsync(scratch_sum, 0, plan.groups * sizeof(float), plan.stream));
    CUDA_CHECK(cudaMemsetAsync(scratch_cnt, 0, plan.groups * sizeof(unsigned int), plan.stream));
    scatter_groups<<<(unsigned)((n + 255) / 256), 256, 0, plan.stream>>>(d_keys, d_vals, n, plan.groups, scratch_sum, scratch_cnt);
    finalize_mean<<<(plan.groups + 127) / 128, 128, 0, plan.stream>>>(scratch_sum, scratch_cnt, d_mean, plan.groups);
    // stream-ordered: the pool reuses these only after the kernels above complete
    CUDA_CHECK(cudaFreeAsync(scratch_sum, plan.stream));
    CUDA_CHECK(cudaFreeAsync(scratch_cnt, plan.stream));
}

int main() {
    const size_t n = 16u << 20;
    GroupByPlan plan{};
    plan.groups = 4096;
    CUDA_CHECK(cudaStreamCreateWithFlags(&plan.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&plan.pool, 0));
    uint64_t threshold = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(plan.pool, cudaMemPoolAttrReleaseThreshold, &threshold));

    uint32_t* d_keys = nullptr;
    float* d_vals = nullptr;
    float* d_mean = nullptr;
    float* h_mean = nullptr;
    CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_keys), n * sizeof(uint32_t), plan.stream));
    CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_vals), n * sizeof(float), plan.stream));
    CUDA_CHECK(cudaMalloc(&d_mean, plan.groups * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_mean, plan.groups * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_keys, 7, n * sizeof(uint32_t), plan.stream));
    CUDA_CHECK(cudaMemsetAsync(d_vals, 0, n * sizeof(float), plan.stream));

    group_mean(plan, d_keys, d_vals, n, d_mean);
    CUDA_CHECK(cudaMemcpyAsync(h_mean, d_mean, plan.groups * sizeof(float), cudaMemcpyDeviceToHost, plan.stream));
    CUDA_CHECK(cudaFreeAsync(d_keys, plan.stream));
    CUDA_CHECK(cudaFreeAsync(d_vals, plan.stream));
    CUDA_CHECK(cudaStreamSynchronize(plan.stream));

    float best = h_mean[0];
    for (uint32_t g = 1; g < plan.groups; ++g) best = h_mean[g] > best ? h_mean[g] : best;
    std::printf("max group mean %f\n", best);

    CUDA_CHECK(cudaFreeHost(h_mean));
    CUDA_CHECK(cudaFree(d_mean));
    CUDA_CHECK(cudaStreamDestroy(plan.stream));
    return 0;
}
