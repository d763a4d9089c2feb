// case: VMM-backed convolution workspace that grows in place: ensure() unmaps the old mapping while the previous layer's kernel may still be using it (no wait), and maps the larger allocation without calling cuMemSetAccess again (access was granted only to the first mapping), so the next layer's kernel uses a mapping the device may not access.
// expect: missing_sync=1, vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorName(r_, &s_);                                              \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?"); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

__global__ void conv1d_layer(float* scratch, size_t n, float w0, float w1, float w2)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i == 0 || i + 1 >= n) return;
    float l = scratch[i - 1], c = scratch[i], r = scratch[i + 1];
    scratch[i] = w0 * l + w1 * c + w2 * r + 1.0f;
}

class VmmWorkspace {
public:
    VmmWorkspace(int device, size_t max_bytes)
    {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        CU_CHECK(cuMemGetAllocationGranularity(&gran_, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        reserved_ = round_up(max_bytes);
        CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    }
    ~VmmWorkspace()
    {
        if (size_) {
            cuMemUnmap(base_, size_);
            cuMemRelease(handle_);
        }
        cuMemAddressFree(base_, reserved_);
    }

    // Contents are not preserved across growth: callers treat this as scratch.
    void ensure(size_t bytes)
    {
        const size_t want = round_up(bytes);
        if (want <= size_) return;
        if (size_) {
            CU_CHECK(cuMemUnmap(base_, size_)); // EXPECT: missing_sync
            CU_CHECK(cuMemRelease(handle_));
        }
        CU_CHECK(cuMemCreate(&handle_, want, &prop_, 0));
        CU_CHECK(cuMemMap(base_, want, 0, handle_, 0));
        if (size_ == 0) { // "access belongs to the reserved range: grant it once"
            CUmemAccessDesc acc = {};
            acc.location = prop_.location;
            acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            CU_CHECK(cuMemSetAccess(base_, want, &acc, 1));
        }
        size_ = want;
    }

    float* data() const { return reinterpret_cast<float*>(base_); }

private:
    size_t round_up(size_t b) const { return (b + gran_ - 1) / gran_ * gran_; }

    CUmemAllocationProp prop_ = {};
    size_t gran_ = 0, reserved_ = 0, size_ = 0;
    CUdeviceptr base_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    {
        VmmWorkspace ws(0, size_t(256) << 20);

        const size_t n1 = (size_t(8) << 20) / sizeof(float);
        ws.ensure(n1 * sizeof(float));
        CU_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(ws.data()), 0, n1, stream));
        conv1d_layer<<<(unsigned)((n1 + 255) / 256), 256, 0, stream>>>(ws.data(), n1, 0.25f, 0.5f, 0.25f);

        const size_t n2 = (size_t(64) << 20) / sizeof(float); // a bigger batch arrives
        ws.ensure(n2 * sizeof(float));
        conv1d_layer<<<(unsigned)((n2 + 255) / 256), 256, 0, stream>>>(ws.data(), n2, 0.1f, 0.8f, 0.1f); // EXPECT: vmm_lifecycle
        CU_CHECK(cuStreamSynchronize(stream));
    }

    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("workspace done\n");
    return 0;
}
