// case: A VMM-backed KV arena compacts its second chunk into the first and unmaps it (cuMemUnmap does not wait for the device) while the compaction kernel still reads it; later it maps a fresh chunk at the same address and zero-fills it assuming the range's old access grant still applies.
// expect: missing_sync=1, vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s failed (%d)\n", #x, (int)r_); std::exit(1); } } while (0)

__global__ void compact(const float* from, float* to, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) to[i] = 0.5f * (to[i] + from[i]);
}

class KvArena {
public:
    explicit KvArena(CUstream s) : stream_(s) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        CU_CHECK(cuMemAddressReserve(&base_, 2 * chunk_, 0, 0, 0));
        CU_CHECK(cuMemCreate(&h_[0], chunk_, &prop_, 0));
        CU_CHECK(cuMemCreate(&h_[1], chunk_, &prop_, 0));
        CU_CHECK(cuMemMap(base_, chunk_, 0, h_[0], 0));
        CU_CHECK(cuMemMap(base_ + chunk_, chunk_, 0, h_[1], 0));
        acc_.location = prop_.location;
        acc_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base_, chunk_, &acc_, 1));
        CU_CHECK(cuMemSetAccess(base_ + chunk_, chunk_, &acc_, 1));
        CU_CHECK(cuMemsetD32Async(base_, 0, 2 * chunk_ / 4, stream_));
    }

    // fold the upper chunk into the lower one and give its memory back
    void shrink() {
        size_t n = chunk_ / sizeof(float);
        compact<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream_>>>(
            reinterpret_cast<const float*>(base_ + chunk_), reinterpret_cast<float*>(base_), n);
        CU_CHECK(cuMemUnmap(base_ + chunk_, chunk_)); // EXPECT: missing_sync
        CU_CHECK(cuMemRelease(h_[1]));
        shrunk_ = true;
    }

    // take the upper chunk back when the batch grows again; access was set for this range in the constructor
    void regrow() {
        CU_CHECK(cuStreamSynchronize(stream_));
        CU_CHECK(cuMemCreate(&h_[1], chunk_, &prop_, 0));
        CU_CHECK(cuMemMap(base_ + chunk_, chunk_, 0, h_[1], 0));
        CU_CHECK(cuMemsetD32Async(base_ + chunk_, 0, chunk_ / 4, stream_)); // EXPECT: vmm_lifecycle
        shrunk_ = false;
    }

    ~KvArena() {
        cuStreamSynchronize(stream_);
        if (!shrunk_) {
            cuMemUnmap(base_ + chunk_, chunk_);
            cuMemRelease(h_[1]);
        }
        cuMemUnmap(base_, chunk_);
        cuMemRelease(h_[0]);
        cuMemAddressFree(base_, 2 * chunk_);
    }

    CUdeviceptr base() const { return base_; }
    size_t chunk() const { return chunk_; }

private:
    CUstream stream_;
    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc acc_ = {};
    size_t chunk_ = 0;
    CUdeviceptr base_ = 0;
    CUmemGenericAllocationHandle h_[2] = {0, 0};
    bool shrunk_ = false;
};

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream s;
    CU_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    {
        KvArena arena(s);
        arena.shrink();
        arena.regrow();
        float first = 0.f;
        CU_CHECK(cuMemcpyDtoHAsync(&first, arena.base(), sizeof(first), s));
        CU_CHECK(cuStreamSynchronize(s));
        std::printf("kv[0] after compaction: %f\n", first);
    }
    CU_CHECK(cuStreamDestroy(s));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
