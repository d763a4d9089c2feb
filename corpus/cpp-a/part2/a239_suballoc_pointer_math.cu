// case: bump sub-allocator over one cudaMalloc'd device arena: the host only does pointer arithmetic, alignment, bounds checks and %p logging on device addresses, and reads results through cudaMemcpy into host memory: near-miss, no device address is dereferenced on the host
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

class DeviceArena {
public:
    explicit DeviceArena(size_t bytes) : capacity_(bytes) {
        CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_base_), bytes));
    }
    ~DeviceArena() { cudaFree(d_base_); }

    template <typename T>
    T* allocate(size_t count, size_t align = 256) {
        size_t off = (offset_ + align - 1) & ~(align - 1);
        size_t bytes = count * sizeof(T);
        if (off + bytes > capacity_) return nullptr;
        offset_ = off + bytes;
        T* p = reinterpret_cast<T*>(d_base_ + off);
        std::printf("arena: %zu bytes at %p (+%zu)\n", bytes, static_cast<void*>(p), off);
        return p;
    }

    bool owns(const void* p) const {
        const char* c = static_cast<const char*>(p);
        return c >= d_base_ && c < d_base_ + capacity_;
    }

    void reset() { offset_ = 0; }
    size_t used() const { return offset_; }

private:
    char* d_base_ = nullptr;
    size_t capacity_;
    size_t offset_ = 0;
};

__global__ void prefix_sum_naive(const int* in, int* out, int n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int acc = 0;
        for (int i = 0; i < n; ++i) { acc += in[i]; out[i] = acc; }
    }
}

int main() {
    const int n = 1 << 16;
    DeviceArena arena(64u << 20);
    int* d_in = arena.allocate<int>(n);
    int* d_out = arena.allocate<int>(n);
    if (d_in == nullptr || d_out == nullptr || !arena.owns(d_out + n - 1)) return 1;

    std::vector<int> h_in(n, 1), h_out(n);
    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    prefix_sum_naive<<<1, 32>>>(d_in, d_out, n);
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));

    std::printf("last prefix %d, arena used %zu bytes, out - in = %td ints\n", h_out[n - 1], arena.used(), d_out - d_in);
    return 0;
}
