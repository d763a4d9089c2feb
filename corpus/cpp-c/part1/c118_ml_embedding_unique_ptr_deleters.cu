// case: an embedding-lookup service owns every buffer through std::unique_ptr with the matching release: a deleter struct calling cudaFree for device memory from a factory template, decltype(&cudaFreeHost) as a function-pointer deleter for pinned memory, and a lambda calling cudaFree for managed memory; the stream is synchronized before any of them runs.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

struct CudaFreeDeleter {
    void operator()(void* p) const noexcept { cudaFree(p); }
};

template <typename T>
using device_unique_ptr = std::unique_ptr<T[], CudaFreeDeleter>;

template <typename T>
using pinned_unique_ptr = std::unique_ptr<T[], decltype(&cudaFreeHost)>;

template <typename T>
device_unique_ptr<T> make_device_array(size_t n) {
    T* p = nullptr;
    if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
    return device_unique_ptr<T>(p);
}

template <typename T>
pinned_unique_ptr<T> make_pinned_array(size_t n) {
    T* p = nullptr;
    if (cudaMallocHost(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
    return pinned_unique_ptr<T>(p, &cudaFreeHost);
}

__global__ void gather_rows(const float* table, int dim, const int32_t* ids, int n, float* out) {
    int i = blockIdx.x;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) out[static_cast<size_t>(i) * dim + d] = table[static_cast<size_t>(ids[i]) * dim + d];
    (void)n;
}

int main() {
    constexpr int kRows = 1 << 18, kDim = 128, kBatch = 4096;

    auto table = make_device_array<float>(static_cast<size_t>(kRows) * kDim);
    auto d_out = make_device_array<float>(static_cast<size_t>(kBatch) * kDim);
    auto d_ids = make_device_array<int32_t>(kBatch);
    auto h_out = make_pinned_array<float>(static_cast<size_t>(kBatch) * kDim);

    auto free_managed = [](int32_t* p) { cudaFree(p); };
    int32_t* raw_ids = nullptr;
    cudaMallocManaged(&raw_ids, kBatch * sizeof(int32_t));
    std::unique_ptr<int32_t, decltype(free_managed)> ids(raw_ids, free_managed);
    for (int i = 0; i < kBatch; ++i) ids.get()[i] = (i * 7919) % kRows;

    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMemsetAsync(table.get(), 0, static_cast<size_t>(kRows) * kDim * sizeof(float), s);
    cudaMemcpyAsync(d_ids.get(), ids.get(), kBatch * sizeof(int32_t), cudaMemcpyDefault, s);
    gather_rows<<<kBatch, 128, 0, s>>>(table.get(), kDim, d_ids.get(), kBatch, d_out.get());
    cudaMemcpyAsync(h_out.get(), d_out.get(), static_cast<size_t>(kBatch) * kDim * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);

    double norm = 0.0;
    for (int d = 0; d < kDim; ++d) norm += h_out[d] * h_out[d];
    std::printf("|e_0|^2 = %.3f\n", norm);

    cudaStreamDestroy(s);
    return 0;   // unique_ptrs release: cudaFree, cudaFreeHost, cudaFree (managed)
}
