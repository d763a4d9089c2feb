// case: A VmmBuffer class's allocate() method reserves, creates and maps, then zero-fills the mapping with cuMemsetD8Async before it calls cuMemSetAccess, so the memset hits a mapping the device has no access to yet.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_TRY(call) do { CUresult st_ = (call); if (st_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s:%d %s (%d)\n", __FILE__, __LINE__, #call, (int)st_); return false; } } while (0)

__global__ void accumulate(int* counts, const int* keys, int n, int buckets) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[keys[i] % buckets], 1);
}

class VmmBuffer {
public:
    explicit VmmBuffer(int device) : device_(device) {}

    bool allocate(size_t bytes, CUstream stream) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device_;
        size_t gran = 0;
        CU_TRY(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = (bytes + gran - 1) / gran * gran;

        CU_TRY(cuMemAddressReserve(&ptr_, size_, 0, 0, 0));
        CU_TRY(cuMemCreate(&handle_, size_, &prop, 0));
        CU_TRY(cuMemMap(ptr_, size_, 0, handle_, 0));
        CU_TRY(cuMemsetD8Async(ptr_, 0, size_, stream));

        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_TRY(cuMemSetAccess(ptr_, size_, &access, 1));
        return true;
    }

    void release() {
        cuMemUnmap(ptr_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(ptr_, size_);
    }

    CUdeviceptr get() const { return ptr_; }

private:
    int device_;
    size_t size_ = 0;
    CUdeviceptr ptr_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

int main() {
    cuInit(0);
    CUdevice dev; cuDeviceGet(&dev, 0);
    CUcontext ctx; cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
    CUstream stream; cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);

    const int buckets = 1024, n = 1 << 20;
    VmmBuffer counts(0);
    if (!counts.allocate(buckets * sizeof(int), stream)) return 1;

    CUdeviceptr keys;
    cuMemAlloc(&keys, n * sizeof(int));
    cuMemsetD32Async(keys, 12345u, n, stream);
    accumulate<<<n / 256, 256, 0, (cudaStream_t)stream>>>((int*)counts.get(), (const int*)keys, n, buckets);

    int h_counts[1024];
    cuMemcpyDtoHAsync(h_counts, counts.get(), sizeof(h_counts), stream);
    cuStreamSynchronize(stream);
    std::printf("bucket %d holds %d keys\n", 12345 % buckets, h_counts[12345 % buckets]);

    cuMemFree(keys);
    counts.release();
    cuStreamDestroy(stream);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
