// case: order-book snapshot buffers: release_host() frees with cudaFreeHost under #if defined(__CUDACC__) (defined by nvcc's host pass); the std::free of the pinned block is only in the CPU-only #else arm the default build leaves out
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct Level {
    int64_t price_ticks;
    int64_t quantity;
};

__global__ void aggregate_levels(const Level* orders, int n, Level* book, int depth) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int lvl = static_cast<int>(orders[i].price_ticks % depth);
    atomicAdd(reinterpret_cast<unsigned long long*>(&book[lvl].quantity),
              static_cast<unsigned long long>(orders[i].quantity));
}

static Level* alloc_host(size_t count) {
    Level* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, count * sizeof(Level)));
    return p;
}

static void release_host(Level* p) {
#if defined(__CUDACC__)
    cudaFreeHost(p);
#else
    std::free(p);
#endif
}

int main() {
    const int n = 1 << 20, depth = 512;
    Level* h_orders = alloc_host(n);
    Level* h_book = alloc_host(depth);
    for (int i = 0; i < n; ++i) h_orders[i] = Level{10000 + (i % 997), 1 + (i % 5)};

    Level *d_orders = nullptr, *d_book = nullptr;
    CUDA_CHECK(cudaMalloc(&d_orders, n * sizeof(Level)));
    CUDA_CHECK(cudaMalloc(&d_book, depth * sizeof(Level)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemsetAsync(d_book, 0, depth * sizeof(Level), s));
    CUDA_CHECK(cudaMemcpyAsync(d_orders, h_orders, n * sizeof(Level), cudaMemcpyHostToDevice, s));
    aggregate_levels<<<(n + 255) / 256, 256, 0, s>>>(d_orders, n, d_book, depth);
    CUDA_CHECK(cudaMemcpyAsync(h_book, d_book, depth * sizeof(Level), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    long long total = 0;
    for (int l = 0; l < depth; ++l) total += h_book[l].quantity;
    std::printf("total resting quantity %lld\n", total);

    cudaFree(d_book);
    cudaFree(d_orders);
    release_host(h_book);
    release_host(h_orders);
    cudaStreamDestroy(s);
    return 0;
}
