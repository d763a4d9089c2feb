// case: halo-exchange buffer built from two RAII members, a PhysicalMapping and an AddressReservation; the mapping is declared first, so C++ destroys the reservation first and cuMemAddressFree runs while the range is still mapped (the unmap comes after, from the mapping's destructor).
// expect: vmm_lifecycle=1
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
            fprintf(stderr, "%s: %s\n", #call, s_ ? s_ : "?");                    \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

static CUmemAllocationProp device_prop(int device)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    return prop;
}

static size_t granular(size_t bytes, int device)
{
    CUmemAllocationProp prop = device_prop(device);
    size_t g = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    return (bytes + g - 1) / g * g;
}

class AddressReservation {
public:
    explicit AddressReservation(size_t size) : size_(size) { CU_CHECK(cuMemAddressReserve(&base_, size_, 0, 0, 0)); }
    ~AddressReservation()
    {
        if (base_) cuMemAddressFree(base_, size_); // EXPECT: vmm_lifecycle
    }
    CUdeviceptr base() const { return base_; }
    size_t size() const { return size_; }
private:
    CUdeviceptr base_ = 0;
    size_t size_;
};

class PhysicalMapping {
public:
    PhysicalMapping() = default;
    void map(CUdeviceptr va, size_t size, int device)
    {
        CUmemAllocationProp prop = device_prop(device);
        CU_CHECK(cuMemCreate(&handle_, size, &prop, 0));
        CU_CHECK(cuMemMap(va, size, 0, handle_, 0));
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(va, size, &acc, 1));
        va_ = va;
        size_ = size;
    }
    ~PhysicalMapping()
    {
        if (!va_) return;
        cuMemUnmap(va_, size_);
        cuMemRelease(handle_);
    }
private:
    CUdeviceptr va_ = 0;
    size_t size_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

class HaloBuffer {
public:
    HaloBuffer(int device, size_t bytes) : range_(granular(bytes, device))
    {
        mapping_.map(range_.base(), range_.size(), device);
    }
    float* data() const { return reinterpret_cast<float*>(range_.base()); }
    size_t count() const { return range_.size() / sizeof(float); }
private:
    PhysicalMapping mapping_;  // declared first, destroyed last
    AddressReservation range_; // destroyed first
};

__global__ void pack_halo(float* buf, size_t n, int rank)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) buf[i] = rank * 1000.0f + (float)(i % 1000);
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    {
        HaloBuffer halo(0, size_t(32) << 20);
        pack_halo<<<(unsigned)((halo.count() + 255) / 256), 256>>>(halo.data(), halo.count(), 3);
        if (cudaDeviceSynchronize() != cudaSuccess) {
            fprintf(stderr, "pack failed\n");
            return 1;
        }
        float first = 0.f;
        cudaMemcpy(&first, halo.data(), sizeof(float), cudaMemcpyDeviceToHost);
        printf("halo packed, first value %.1f\n", first);
    } // ~HaloBuffer: range_ (cuMemAddressFree) before mapping_ (cuMemUnmap)

    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
