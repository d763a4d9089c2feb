// case: a growable VMM arena for a graph-analytics frontier reserves a large range, maps each new chunk at base + mapped and grants access to it before any kernel uses it, releases handles right after mapping (allowed), and unmaps every chunk before cuMemAddressFree after synchronizing.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <stdexcept>
#include <vector>

#define ARENA_CU(x)                                                                    \
    do {                                                                               \
        CUresult r_ = (x);                                                             \
        if (r_ != CUDA_SUCCESS) throw std::runtime_error("arena: " #x);                \
    } while (0)

class GrowableArena {
public:
    GrowableArena(int device, size_t max_bytes, cudaStream_t s) : stream_(s) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        ARENA_CU(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        reserved_ = ((max_bytes + chunk_ - 1) / chunk_) * chunk_;
        ARENA_CU(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    }
    ~GrowableArena() {
        cudaStreamSynchronize(stream_);
        for (size_t off = 0; off < mapped_; off += chunk_) cuMemUnmap(base_ + off, chunk_);
        cuMemAddressFree(base_, reserved_);
    }
    GrowableArena(const GrowableArena&) = delete;
    GrowableArena& operator=(const GrowableArena&) = delete;

    // Make sure at least `bytes` are backed; returns the (stable) base pointer.
    void* ensure(size_t bytes) {
        while (mapped_ < bytes) {
            if (mapped_ + chunk_ > reserved_) throw std::length_error("arena exhausted");
            CUmemGenericAllocationHandle h;
            ARENA_CU(cuMemCreate(&h, chunk_, &prop_, 0));
            ARENA_CU(cuMemMap(base_ + mapped_, chunk_, 0, h, 0));
            ARENA_CU(cuMemRelease(h));  // the mapping keeps the pages alive
            CUmemAccessDesc rw = {};
            rw.location = prop_.location;
            rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            ARENA_CU(cuMemSetAccess(base_ + mapped_, chunk_, &rw, 1));
            mapped_ += chunk_;
        }
        return reinterpret_cast<void*>(base_);
    }

private:
    cudaStream_t stream_;
    CUmemAllocationProp prop_ = {};
    size_t chunk_ = 0, reserved_ = 0, mapped_ = 0;
    CUdeviceptr base_ = 0;
};

__global__ void expand_frontier(const int* frontier, int count, int* next, int* next_count, int fanout) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    for (int k = 0; k < fanout; ++k) {
        int slot = atomicAdd(next_count, 1);
        next[slot] = frontier[i] * fanout + k;
    }
}

int main() {
    ARENA_CU(cuInit(0));
    cudaFree(nullptr);
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

    int* d_count = nullptr;
    int* h_count = nullptr;
    cudaMalloc(&d_count, sizeof(int));
    cudaMallocHost(&h_count, sizeof(int));
    {
        GrowableArena frontier_a(0, size_t(1) << 30, stream), frontier_b(0, size_t(1) << 30, stream);
        int count = 1;
        int* cur = static_cast<int*>(frontier_a.ensure(sizeof(int)));
        cudaMemsetAsync(cur, 0, sizeof(int), stream);
        const int fanout = 4;
        for (int level = 0; level < 8; ++level) {
            GrowableArena& dst_arena = (level % 2 == 0) ? frontier_b : frontier_a;
            int* next = static_cast<int*>(dst_arena.ensure(sizeof(int) * size_t(count) * fanout));
            cudaMemsetAsync(d_count, 0, sizeof(int), stream);
            expand_frontier<<<(count + 255) / 256, 256, 0, stream>>>(cur, count, next, d_count, fanout);
            cudaMemcpyAsync(h_count, d_count, sizeof(int), cudaMemcpyDeviceToHost, stream);
            cudaStreamSynchronize(stream);
            count = *h_count;
            cur = next;
            std::printf("level %d frontier %d\n", level, count);
        }
    }
    cudaFree(d_count);
    cudaFreeHost(h_count);
    cudaStreamDestroy(stream);
    return 0;
}
