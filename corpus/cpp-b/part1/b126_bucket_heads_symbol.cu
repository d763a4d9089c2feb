// case: GPU hash index with a __device__ bucket-head table: host code takes its address with cudaGetSymbolAddress, writes a sentinel through that device pointer on the host, and at shutdown passes the symbol's address to cudaFree
// expect: host_deref_device_ptr=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

constexpr int kBuckets = 1 << 16;
__device__ int g_bucket_heads[kBuckets];

__global__ void insert_keys(const int* keys, int* next, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = keys[i] & (kBuckets - 1);
    next[i] = atomicExch(&g_bucket_heads[b], i);
}

class HashIndex {
public:
    explicit HashIndex(int capacity) : capacity_(capacity) {
        CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&heads_), g_bucket_heads));
        CUDA_CHECK(cudaMemset(heads_, 0xff, kBuckets * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_keys_, capacity_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_next_, capacity_ * sizeof(int)));
        CUDA_CHECK(cudaDeviceSynchronize());
        heads_[0] = -1; // EXPECT: host_deref_device_ptr
    }

    ~HashIndex() {
        cudaDeviceSynchronize();
        cudaFree(d_next_);
        cudaFree(d_keys_);
        cudaFree(heads_); // EXPECT: mismatched_free
    }

    void build(const std::vector<int>& keys) {
        int n = static_cast<int>(keys.size());
        if (n > capacity_) n = capacity_;
        CUDA_CHECK(cudaMemcpy(d_keys_, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        insert_keys<<<(n + 255) / 256, 256>>>(d_keys_, d_next_, n);
        CUDA_CHECK(cudaDeviceSynchronize());
    }

private:
    int capacity_;
    int* heads_ = nullptr;
    int* d_keys_ = nullptr;
    int* d_next_ = nullptr;
};

int main() {
    std::vector<int> keys(1 << 20);
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<int>(i * 7919);
    HashIndex index(1 << 20);
    index.build(keys);
    std::puts("index built");
    return 0;
}
