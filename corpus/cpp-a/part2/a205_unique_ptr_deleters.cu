// case: column-store scan buffers owned by std::unique_ptr with custom deleters (cudaFreeHost for cudaMallocHost memory, cudaFree for cudaMalloc memory) behind using-aliases: near-miss, every release matches its allocator and the stream is synchronized before the read
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t s_ = (x);                                                  \
        if (s_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

struct PinnedDeleter {
    void operator()(void* p) const noexcept { cudaFreeHost(p); }
};
struct DeviceDeleter {
    void operator()(void* p) const noexcept { cudaFree(p); }
};

template <typename T> using pinned_ptr = std::unique_ptr<T[], PinnedDeleter>;
template <typename T> using device_ptr = std::unique_ptr<T[], DeviceDeleter>;

template <typename T>
pinned_ptr<T> make_pinned(size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, n * sizeof(T)));
    return pinned_ptr<T>(static_cast<T*>(p));
}

template <typename T>
device_ptr<T> make_device(size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    return device_ptr<T>(static_cast<T*>(p));
}

__global__ void filter_gt(const int32_t* col, int32_t pivot, uint32_t* flags, size_t n,
                          unsigned long long* hits) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t f = col[i] > pivot ? 1u : 0u;
    flags[i] = f;
    if (f) atomicAdd(hits, 1ull);
}

int main() {
    const size_t rows = 8u << 20;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    pinned_ptr<int32_t> h_col = make_pinned<int32_t>(rows);
    pinned_ptr<unsigned long long> h_hits = make_pinned<unsigned long long>(1);
    device_ptr<int32_t> d_col = make_device<int32_t>(rows);
    device_ptr<uint32_t> d_flags = make_device<uint32_t>(rows);
    device_ptr<unsigned long long> d_hits = make_device<unsigned long long>(1);

    for (size_t i = 0; i < rows; ++i) h_col[i] = static_cast<int32_t>((i * 2654435761u) % 1000);

    CUDA_CHECK(cudaMemcpyAsync(d_col.get(), h_col.get(), rows * sizeof(int32_t), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemsetAsync(d_hits.get(), 0, sizeof(unsigned long long), s));
    filter_gt<<<(unsigned)((rows + 511) / 512), 512, 0, s>>>(d_col.get(), 900, d_flags.get(), rows, d_hits.get());
    CUDA_CHECK(cudaMemcpyAsync(h_hits.get(), d_hits.get(), sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::printf("selectivity: %.4f\n", double(h_hits[0]) / double(rows));

    // unique_ptrs release in reverse order: cudaFree / cudaFreeHost, after the sync above
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
