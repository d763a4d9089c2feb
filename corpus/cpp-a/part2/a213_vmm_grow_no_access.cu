// case: growable VMM arena for a streaming join: grow() maps a new physical chunk at the end of the reservation and launches the page-initialisation kernel on it before granting device access with cuMemSetAccess
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CU_CHECK(x)                                                            \
    do {                                                                       \
        CUresult r_ = (x);                                                     \
        if (r_ != CUDA_SUCCESS) {                                              \
            const char* m_ = nullptr;                                          \
            cuGetErrorString(r_, &m_);                                         \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, m_);        \
            std::exit(3);                                                      \
        }                                                                      \
    } while (0)

struct HashPage {
    uint32_t keys[1024];
    uint32_t rows[1024];
};

__global__ void init_pages(HashPage* pages, size_t n_pages) {
    size_t p = blockIdx.x;
    if (p >= n_pages) return;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) {
        pages[p].keys[i] = 0xffffffffu;
        pages[p].rows[i] = 0;
    }
}

class GrowableArena {
public:
    GrowableArena(int device, size_t max_bytes, cudaStream_t stream) : stream_(stream) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        CU_CHECK(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        reserved_ = ((max_bytes + chunk_ - 1) / chunk_) * chunk_;
        CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }

    ~GrowableArena() {
        cudaStreamSynchronize(stream_);
        for (size_t i = 0; i < handles_.size(); ++i) {
            cuMemUnmap(base_ + i * chunk_, chunk_);
            cuMemRelease(handles_[i]);
        }
        cuMemAddressFree(base_, reserved_);
    }

    // maps one more chunk at the end and returns its pages, initialised
    HashPage* grow() {
        if (mapped_ + chunk_ > reserved_) return nullptr;
        CUmemGenericAllocationHandle h;
        CU_CHECK(cuMemCreate(&h, chunk_, &prop_, 0));
        CUdeviceptr chunk_ptr = base_ + mapped_;
        CU_CHECK(cuMemMap(chunk_ptr, chunk_, 0, h, 0));
        handles_.push_back(h);

        HashPage* pages = reinterpret_cast<HashPage*>(chunk_ptr);
        const size_t n_pages = chunk_ / sizeof(HashPage);
        init_pages<<<(unsigned)n_pages, 256, 0, stream_>>>(pages, n_pages); // EXPECT: vmm_lifecycle
        CU_CHECK(cuMemSetAccess(chunk_ptr, chunk_, &access_, 1));
        mapped_ += chunk_;
        return pages;
    }

    size_t chunk_bytes() const { return chunk_; }

private:
    cudaStream_t stream_;
    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc access_ = {};
    CUdeviceptr base_ = 0;
    size_t chunk_ = 0;
    size_t reserved_ = 0;
    size_t mapped_ = 0;
    std::vector<CUmemGenericAllocationHandle> handles_;
};

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    {
        GrowableArena arena(0, 256u << 20, s);
        HashPage* first = arena.grow();
        std::printf("first chunk at %p, %zu bytes\n", (void*)first, arena.chunk_bytes());
        cudaStreamSynchronize(s);
    }
    cudaStreamDestroy(s);
    return 0;
}
