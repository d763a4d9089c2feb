// case: a growable VMM arena for a graph-analytics frontier maps each new chunk at base+mapped_ and grants access to it before any kernel uses it, and its destructor synchronizes, unmaps every chunk, releases the handles and only then frees the reservation.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CU_TRY(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { const char* m; \
    cuGetErrorString(e, &m); fprintf(stderr, "%s: %s\n", #x, m); std::exit(1); } } while (0)

__global__ void expand_frontier(const int* frontier, int n, int* next, int* next_len, int nodes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = frontier[i];
    int w = (v * 7 + 3) % nodes;
    next[atomicAdd(next_len, 1)] = w;
}

class VmmArena {
public:
    VmmArena(int device, size_t max_bytes, CUstream s) : stream_(s) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        CU_TRY(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        reserved_ = (max_bytes + chunk_ - 1) / chunk_ * chunk_;
        CU_TRY(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }

    ~VmmArena() {
        cuStreamSynchronize(stream_);
        for (size_t i = 0; i < handles_.size(); ++i) cuMemUnmap(base_ + i * chunk_, chunk_);
        for (auto h : handles_) cuMemRelease(h);
        cuMemAddressFree(base_, reserved_);
    }

    // Makes sure [base_, base_ + bytes) is backed, mapped and accessible.
    CUdeviceptr ensure(size_t bytes) {
        while (mapped_ < bytes) {
            if (mapped_ + chunk_ > reserved_) { fprintf(stderr, "arena exhausted\n"); std::exit(2); }
            CUmemGenericAllocationHandle h;
            CU_TRY(cuMemCreate(&h, chunk_, &prop_, 0));
            CU_TRY(cuMemMap(base_ + mapped_, chunk_, 0, h, 0));
            CU_TRY(cuMemSetAccess(base_ + mapped_, chunk_, &access_, 1));
            handles_.push_back(h);
            mapped_ += chunk_;
        }
        return base_;
    }

private:
    CUstream stream_;
    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc access_ = {};
    CUdeviceptr base_ = 0;
    size_t chunk_ = 0, reserved_ = 0, mapped_ = 0;
    std::vector<CUmemGenericAllocationHandle> handles_;
};

int main() {
    CU_TRY(cuInit(0));
    CUdevice dev; CU_TRY(cuDeviceGet(&dev, 0));
    CUcontext ctx; CU_TRY(cuDevicePrimaryCtxRetain(&ctx, dev)); CU_TRY(cuCtxSetCurrent(ctx));
    CUstream s; CU_TRY(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    const int nodes = 1 << 24;
    CUdeviceptr d_frontier, d_len;
    CU_TRY(cuMemAlloc(&d_frontier, nodes * sizeof(int)));
    CU_TRY(cuMemAlloc(&d_len, sizeof(int)));
    CU_TRY(cuMemsetD32Async(d_frontier, 0, nodes, s));
    {
        VmmArena arena(0, (size_t)nodes * sizeof(int), s);
        int frontier_len = 1;
        for (int level = 0; level < 6; ++level) {
            CUdeviceptr next = arena.ensure((size_t)frontier_len * sizeof(int));
            CU_TRY(cuMemsetD32Async(d_len, 0, 1, s));
            expand_frontier<<<(frontier_len + 255) / 256, 256, 0, (cudaStream_t)s>>>(
                (const int*)d_frontier, frontier_len, (int*)next, (int*)d_len, nodes);
            CU_TRY(cuMemcpyDtoDAsync(d_frontier, next, (size_t)frontier_len * sizeof(int), s));
            frontier_len *= 4;
        }
        CU_TRY(cuStreamSynchronize(s));
        printf("expanded 6 levels, last frontier %d\n", frontier_len);
    }
    CU_TRY(cuMemFree(d_len));
    CU_TRY(cuMemFree(d_frontier));
    CU_TRY(cuStreamDestroy(s));
    return 0;
}
