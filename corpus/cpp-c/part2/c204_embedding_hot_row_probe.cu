// case: a recommendation-serving embedding cache keeps its table in cudaMalloc memory and its hot-row check dereferences the device table on the host, after synchronizing (which does not make it host memory)
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e = (call);                                                   \
        if (e != cudaSuccess) {                                                   \
            std::fprintf(stderr, "cuda error %d (%s) line %d\n", (int)e,          \
                         cudaGetErrorString(e), __LINE__);                        \
            std::exit(2);                                                         \
        }                                                                         \
    } while (0)

__global__ void gather_rows(const float* table, const int* ids, float* out, int n_ids, int dim) {
    int i = blockIdx.x;
    if (i >= n_ids) return;
    const float* src = table + (size_t)ids[i] * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) out[(size_t)i * dim + d] = src[d];
}

class EmbeddingCache {
public:
    EmbeddingCache(int rows, int dim, cudaStream_t stream)
        : rows_(rows), dim_(dim), stream_(stream) {
        CUDA_CHECK(cudaMalloc(&table_, (size_t)rows_ * dim_ * sizeof(float)));
        CUDA_CHECK(cudaMemsetAsync(table_, 0, (size_t)rows_ * dim_ * sizeof(float), stream_));
        CUDA_CHECK(cudaMalloc(&d_ids_, kMaxBatch * sizeof(int)));
    }
    ~EmbeddingCache() {
        cudaFree(d_ids_);
        cudaFree(table_);
    }

    // Rows that were never trained are all zero: skip them in the lookup.
    bool is_cold(int row) const {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        const float* first = table_ + (size_t)row * dim_;
        return first[0] == 0.0f && first[dim_ - 1] == 0.0f; // EXPECT: host_deref_device_ptr
    }

    int lookup(const std::vector<int>& ids, float* d_out) {
        std::vector<int> hot;
        hot.reserve(ids.size());
        for (int id : ids)
            if (!is_cold(id)) hot.push_back(id);
        if (hot.empty()) return 0;
        CUDA_CHECK(cudaMemcpy(d_ids_, hot.data(), hot.size() * sizeof(int), cudaMemcpyHostToDevice));
        gather_rows<<<(int)hot.size(), 128, 0, stream_>>>(table_, d_ids_, d_out, (int)hot.size(), dim_);
        CUDA_CHECK(cudaGetLastError());
        return (int)hot.size();
    }

    static constexpr int kMaxBatch = 4096;

private:
    int rows_, dim_;
    cudaStream_t stream_;
    float* table_ = nullptr;
    int* d_ids_ = nullptr;
};

int main() {
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    const int dim = 64;
    EmbeddingCache cache(1 << 20, dim, stream);

    float* d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_out, (size_t)EmbeddingCache::kMaxBatch * dim * sizeof(float)));

    std::vector<int> request;
    for (int i = 0; i < 512; ++i) request.push_back((i * 7919) % (1 << 20));
    int served = cache.lookup(request, d_out);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("served %d of %zu rows\n", served, request.size());

    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
