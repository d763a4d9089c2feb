// case: device slab allocator writes its bookkeeping header into the first bytes of a cudaMalloc'd slab from the host, and its release path returns slabs with cudaFreeHost
// expect: mismatched_free=1, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t s_ = (x);                                                  \
        if (s_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

#define POOL_ALLOC(ptr, bytes) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&(ptr)), (bytes)))

struct SlabHeader {
    uint32_t magic;
    uint32_t object_size;
    uint32_t capacity;
    uint32_t next_free;
};

typedef unsigned char byte_t;

class SlabPool {
public:
    SlabPool(uint32_t object_size, uint32_t objects_per_slab)
        : object_size_(object_size), per_slab_(objects_per_slab) {}

    ~SlabPool() { release_all(); }

    byte_t* grow() {
        byte_t* slab = nullptr;
        const size_t bytes = sizeof(SlabHeader) + (size_t)object_size_ * per_slab_;
        POOL_ALLOC(slab, bytes);
        SlabHeader* hdr = reinterpret_cast<SlabHeader*>(slab);
        hdr->magic = 0x51AB51ABu; // EXPECT: host_deref_device_ptr
        hdr->object_size = object_size_;
        hdr->capacity = per_slab_;
        hdr->next_free = 0;
        slabs_.push_back(slab);
        return slab;
    }

    void release_all() {
        CUDA_CHECK(cudaDeviceSynchronize());
        for (byte_t* slab : slabs_) {
            cudaFreeHost(slab); // EXPECT: mismatched_free
        }
        slabs_.clear();
    }

private:
    uint32_t object_size_;
    uint32_t per_slab_;
    std::vector<byte_t*> slabs_;
};

__global__ void bump_alloc(byte_t* slab, uint32_t* out_offsets, int n) {
    SlabHeader* hdr = reinterpret_cast<SlabHeader*>(slab);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t idx = atomicAdd(&hdr->next_free, 1u);
    out_offsets[i] = idx < hdr->capacity ? (uint32_t)sizeof(SlabHeader) + idx * hdr->object_size : 0xffffffffu;
}

int main() {
    SlabPool pool(128, 4096);
    byte_t* slab = pool.grow();
    uint32_t* d_offsets = nullptr;
    CUDA_CHECK(cudaMalloc(&d_offsets, 1024 * sizeof(uint32_t)));
    bump_alloc<<<4, 256>>>(slab, d_offsets, 1024);
    std::vector<uint32_t> offsets(1024);
    CUDA_CHECK(cudaMemcpy(offsets.data(), d_offsets, offsets.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    std::printf("last offset %u\n", offsets.back());
    CUDA_CHECK(cudaFree(d_offsets));
    pool.release_all();
    return 0;
}
