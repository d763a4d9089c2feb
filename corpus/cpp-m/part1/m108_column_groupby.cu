// case: A GPU column store runs a group-by count; it clears the cudaMalloc'd group counters with a host std::memset (host write of device memory) and computes a column checksum with std::accumulate over the column's device pointer (host read); host_deref_device_ptr at each.
// expect: host_deref_device_ptr=2
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t st_ = (x);                                                     \
        if (st_ != cudaSuccess) {                                                  \
            std::fprintf(stderr, "[cuda] %s -> %s\n", #x, cudaGetErrorString(st_)); \
            std::exit(2);                                                          \
        }                                                                          \
    } while (0)

struct DeviceColumn {
    int32_t* d_data = nullptr;
    size_t rows = 0;
};

struct GroupCounts {
    unsigned long long* d_counts = nullptr;
    int groups = 0;
};

static DeviceColumn upload_column(const std::vector<int32_t>& host) {
    DeviceColumn col;
    col.rows = host.size();
    CUDA_CHECK(cudaMalloc(&col.d_data, col.rows * sizeof(int32_t)));
    CUDA_CHECK(cudaMemcpy(col.d_data, host.data(), col.rows * sizeof(int32_t), cudaMemcpyHostToDevice));
    return col;
}

static GroupCounts make_counts(int groups) {
    GroupCounts g;
    g.groups = groups;
    CUDA_CHECK(cudaMalloc(&g.d_counts, size_t(groups) * sizeof(unsigned long long)));
    return g;
}

static void reset_counts(GroupCounts& g) {
    std::memset(g.d_counts, 0, size_t(g.groups) * sizeof(unsigned long long));  // EXPECT: host_deref_device_ptr
}

static int64_t column_checksum(const DeviceColumn& col) {
    return std::accumulate(col.d_data, col.d_data + col.rows, int64_t{0});  // EXPECT: host_deref_device_ptr
}

__global__ void group_count(const int32_t* __restrict__ keys, size_t rows, int groups,
                            unsigned long long* counts) {
    extern __shared__ unsigned long long local[];
    for (int g = threadIdx.x; g < groups; g += blockDim.x) local[g] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < rows; i += size_t(gridDim.x) * blockDim.x) {
        int k = keys[i];
        if (k >= 0 && k < groups) atomicAdd(&local[k], 1ull);
    }
    __syncthreads();
    for (int g = threadIdx.x; g < groups; g += blockDim.x)
        if (local[g]) atomicAdd(&counts[g], local[g]);
}

int main(int argc, char** argv) {
    size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
    const int groups = 1000;
    std::vector<int32_t> region(rows);
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < rows; ++i) {
        h = (h ^ uint32_t(i)) * 16777619u;
        region[i] = int32_t(h % groups);
    }

    DeviceColumn col = upload_column(region);
    GroupCounts counts = make_counts(groups);
    reset_counts(counts);
    std::printf("column checksum: %lld\n", (long long)column_checksum(col));

    group_count<<<512, 256, groups * sizeof(unsigned long long)>>>(col.d_data, col.rows, groups, counts.d_counts);
    CUDA_CHECK(cudaGetLastError());

    std::vector<unsigned long long> result(groups);
    CUDA_CHECK(cudaMemcpy(result.data(), counts.d_counts, groups * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    unsigned long long total = 0;
    for (auto c : result) total += c;
    std::printf("rows counted: %llu (expected %zu), group 0: %llu\n", total, rows, result[0]);

    CUDA_CHECK(cudaFree(counts.d_counts));
    CUDA_CHECK(cudaFree(col.d_data));
    return 0;
}
