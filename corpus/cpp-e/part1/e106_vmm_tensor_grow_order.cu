// case: A VMM-backed growable tensor zero-fills its second chunk with cuMemsetD32Async before cuMemSetAccess grants access to that mapping, and its destructor frees the reserved range before unmapping it.
// expect: vmm_lifecycle=2
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); std::fprintf(stderr, "%s: %s\n", #x, s_ ? s_ : "?"); std::abort(); } } while (0)

__global__ void scale_rows(float* t, size_t n, float a)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) t[i] = t[i] * a + 1.0f;
}

class GrowableTensor {
public:
    explicit GrowableTensor(CUstream stream) : stream_(stream) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemAddressReserve(&base_, 2 * chunk_, 0, 0, 0));
        CU_CHECK(cuMemCreate(&h0_, chunk_, &prop_, 0));
        CU_CHECK(cuMemMap(base_, chunk_, 0, h0_, 0));
        CU_CHECK(cuMemSetAccess(base_, chunk_, &access_, 1));
        CU_CHECK(cuMemsetD32Async(base_, 0, chunk_ / 4, stream_));
    }

    // second chunk appended behind the first, contiguous in VA
    void grow() {
        CU_CHECK(cuMemCreate(&h1_, chunk_, &prop_, 0));
        CU_CHECK(cuMemMap(base_ + chunk_, chunk_, 0, h1_, 0));
        CU_CHECK(cuMemsetD32Async(base_ + chunk_, 0, chunk_ / 4, stream_)); // EXPECT: vmm_lifecycle
        CU_CHECK(cuMemSetAccess(base_ + chunk_, chunk_, &access_, 1));
        grown_ = true;
    }

    ~GrowableTensor() {
        cuStreamSynchronize(stream_);
        cuMemAddressFree(base_, 2 * chunk_); // EXPECT: vmm_lifecycle
        cuMemUnmap(base_, chunk_);
        cuMemRelease(h0_);
        if (grown_) {
            cuMemUnmap(base_ + chunk_, chunk_);
            cuMemRelease(h1_);
        }
    }

    float* data() const { return reinterpret_cast<float*>(base_); }
    size_t elems() const { return (grown_ ? 2 : 1) * chunk_ / sizeof(float); }

private:
    CUstream stream_;
    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc access_ = {};
    size_t chunk_ = 0;
    CUdeviceptr base_ = 0;
    CUmemGenericAllocationHandle h0_ = 0, h1_ = 0;
    bool grown_ = false;
};

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    {
        GrowableTensor t(stream);
        t.grow();
        size_t n = t.elems();
        scale_rows<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(t.data(), n, 2.0f);
        CU_CHECK(cuStreamSynchronize(stream));
        std::printf("tensor of %zu floats ready\n", n);
    }
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
