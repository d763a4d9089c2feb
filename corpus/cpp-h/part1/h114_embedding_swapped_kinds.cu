// case: Embedding-lookup service uploads its weight table with the DeviceToHost kind pasted from a readback, and reads the pooled outputs back into a std::vector under cudaMemcpyHostToDevice (a pageable destination stated as device memory); the index and offset uploads are right.
// expect: memcpy_kind_mismatch=2
#include <cuda_runtime.h>
#include <vector>
#include <random>
#include <cstdio>

#define CUDA_CHECK(expr) do { cudaError_t s_ = (expr); if (s_ != cudaSuccess) \
    std::fprintf(stderr, "warning: %s: %s\n", #expr, cudaGetErrorString(s_)); } while (0)

template <typename T>
struct DevArray {
    T* ptr = nullptr;
    size_t n = 0;
    explicit DevArray(size_t count) : n(count) { CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T))); }
    ~DevArray() { cudaFree(ptr); }
    size_t bytes() const { return n * sizeof(T); }
};

__global__ void bag_sum(const float* table, const int* idx, const int* offsets, float* out, int dim, int bags)
{
    int b = blockIdx.x, d = threadIdx.x;
    if (b >= bags || d >= dim) return;
    float acc = 0.f;
    for (int j = offsets[b]; j < offsets[b + 1]; ++j) acc += table[(size_t)idx[j] * dim + d];
    out[(size_t)b * dim + d] = acc;
}

int main()
{
    const int rows = 1 << 18, dim = 64, bags = 2048, per_bag = 20;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> U(-0.05f, 0.05f);
    std::vector<float> weights((size_t)rows * dim);
    for (auto& w : weights) w = U(rng);
    std::vector<int> idx(bags * per_bag), offsets(bags + 1);
    for (int b = 0; b <= bags; ++b) offsets[b] = b * per_bag;
    for (auto& i : idx) i = (int)(rng() % rows);

    DevArray<float> d_table(weights.size());
    DevArray<int> d_idx(idx.size()), d_off(offsets.size());
    DevArray<float> d_out((size_t)bags * dim);

    CUDA_CHECK(cudaMemcpy(d_table.ptr, weights.data(), d_table.bytes(), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(d_idx.ptr, idx.data(), d_idx.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_off.ptr, offsets.data(), d_off.bytes(), cudaMemcpyHostToDevice));

    bag_sum<<<bags, dim>>>(d_table.ptr, d_idx.ptr, d_off.ptr, d_out.ptr, dim, bags);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> pooled((size_t)bags * dim);
    CUDA_CHECK(cudaMemcpy(pooled.data(), d_out.ptr, d_out.bytes(), cudaMemcpyHostToDevice));

    float norm = 0.f;
    for (int d = 0; d < dim; ++d) norm += pooled[d] * pooled[d];
    std::printf("|bag0|^2 = %f\n", norm);
    return 0;
}
