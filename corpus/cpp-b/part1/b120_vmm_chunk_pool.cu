// case: growable VMM chunk pool for a graph analytics engine: reserve, create, map, cuMemSetAccess, then use; teardown synchronizes, unmaps each chunk, releases, and frees the range last; the chunk size comes from an #ifndef default
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef VMM_CHUNK_MB
#define VMM_CHUNK_MB 32
#endif

#define CU_CHECK(call)                                                       \
    do {                                                                     \
        CUresult r_ = (call);                                                \
        if (r_ != CUDA_SUCCESS) {                                            \
            const char* msg_ = nullptr;                                      \
            cuGetErrorString(r_, &msg_);                                     \
            std::fprintf(stderr, "%s failed: %s\n", #call, msg_);            \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void init_frontier(int* frontier, size_t n, int source) {
    size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < n) frontier[i] = (static_cast<int>(i) == source) ? 0 : -1;
}

class ChunkPool {
public:
    ChunkPool(int device, size_t max_chunks) : max_chunks_(max_chunks) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        chunk_bytes_ = (static_cast<size_t>(VMM_CHUNK_MB) << 20) / gran * gran;
        CU_CHECK(cuMemAddressReserve(&base_, chunk_bytes_ * max_chunks_, 0, 0, 0));
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }

    ~ChunkPool() {
        cuCtxSynchronize();
        for (size_t c = 0; c < handles_.size(); ++c) {
            cuMemUnmap(base_ + c * chunk_bytes_, chunk_bytes_);
            cuMemRelease(handles_[c]);
        }
        cuMemAddressFree(base_, chunk_bytes_ * max_chunks_);
    }

    bool grow() {
        if (handles_.size() == max_chunks_) return false;
        CUmemGenericAllocationHandle h = 0;
        CU_CHECK(cuMemCreate(&h, chunk_bytes_, &prop_, 0));
        CUdeviceptr at = base_ + handles_.size() * chunk_bytes_;
        CU_CHECK(cuMemMap(at, chunk_bytes_, 0, h, 0));
        CU_CHECK(cuMemSetAccess(at, chunk_bytes_, &access_, 1));
        handles_.push_back(h);
        return true;
    }

    int* data() const { return reinterpret_cast<int*>(base_); }
    size_t bytes() const { return handles_.size() * chunk_bytes_; }

private:
    size_t max_chunks_;
    size_t chunk_bytes_ = 0;
    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc access_ = {};
    CUdeviceptr base_ = 0;
    std::vector<CUmemGenericAllocationHandle> handles_;
};

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    {
        ChunkPool pool(0, 8);
        pool.grow();
        pool.grow();
        size_t n = pool.bytes() / sizeof(int);
        init_frontier<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(pool.data(), n, 0);
        int head = 0;
        cudaMemcpyAsync(&head, pool.data(), sizeof(int), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
        std::printf("frontier[0] = %d over %zu vertices\n", head, n);
    }
    cudaStreamDestroy(s);
    return 0;
}
