// case: a KV-cache manager owns device, pinned and malloc'd blocks through unique_ptrs whose deleters match each allocator, registers the malloc'd spill buffer before unregistering it, and only reads the address of a __device__ global through cudaGetSymbolAddress without freeing it: every release matches its allocator.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__device__ unsigned int g_evictions;

constexpr size_t kPageBytes = 2u << 20;
constexpr int kPages = 16;

__global__ void evict_page(const float* cache, float* staging, size_t n, unsigned int* evictions) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) staging[i] = cache[i];
    if (i == 0) atomicAdd(evictions, 1u);
}

struct DeviceDeleter { void operator()(float* p) const { cudaFree(p); } };
struct PinnedDeleter { void operator()(float* p) const { cudaFreeHost(p); } };
struct HeapDeleter   { void operator()(float* p) const { std::free(p); } };

using DevicePtr = std::unique_ptr<float, DeviceDeleter>;
using PinnedPtr = std::unique_ptr<float, PinnedDeleter>;
using HeapPtr   = std::unique_ptr<float, HeapDeleter>;

class KvCache {
public:
    KvCache() {
        float* d = nullptr;
        CUDA_CHECK(cudaMalloc(&d, kPages * kPageBytes));
        cache_ = DevicePtr(d);
        float* h = nullptr;
        CUDA_CHECK(cudaMallocHost(&h, kPageBytes));
        staging_ = PinnedPtr(h);
        spill_ = HeapPtr(static_cast<float*>(std::malloc(kPages * kPageBytes)));
        CUDA_CHECK(cudaHostRegister(spill_.get(), kPages * kPageBytes, cudaHostRegisterDefault));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&d_evictions_), g_evictions));
        CUDA_CHECK(cudaMemsetAsync(cache_.get(), 0, kPages * kPageBytes, stream_));
    }
    ~KvCache() {
        cudaStreamSynchronize(stream_);
        cudaHostUnregister(spill_.get());   // registered in the constructor
        cudaStreamDestroy(stream_);
        // d_evictions_ is the module's global: nothing to free
    }

    void evict(int page) {
        const size_t n = kPageBytes / sizeof(float);
        float* src = cache_.get() + page * n;
        evict_page<<<unsigned(n / 256), 256, 0, stream_>>>(src, cache_.get() + ((page + 1) % kPages) * n, n,
                                                           d_evictions_);
        CUDA_CHECK(cudaMemcpyAsync(spill_.get() + page * n, src, kPageBytes, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaMemcpyAsync(staging_.get(), src, kPageBytes, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    unsigned int evictions() {
        unsigned int v = 0;
        CUDA_CHECK(cudaMemcpyFromSymbol(&v, g_evictions, sizeof(v)));
        return v;
    }

private:
    DevicePtr cache_;
    PinnedPtr staging_;
    HeapPtr spill_;
    cudaStream_t stream_{};
    unsigned int* d_evictions_ = nullptr;
};

int main() {
    KvCache kv;
    for (int p = 0; p < kPages; ++p) kv.evict(p);
    std::printf("evictions: %u\n", kv.evictions());
    return 0;
}
