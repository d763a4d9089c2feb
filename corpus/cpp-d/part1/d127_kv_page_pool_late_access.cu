// case: inference-server KV-cache page pool that maps new pages in add_page() and batches the cuMemSetAccess for all of them into commit(); the caller zeroes the two fresh pages with a kernel before calling commit(), so the kernel touches mappings that have no access yet.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorName(r_, &s_);                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?");      \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

__global__ void zero_pages(float* k_page, float* v_page, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) { k_page[i] = 0.f; v_page[i] = 0.f; }
}

__global__ void prefill(float* k_page, float* v_page, size_t n, int seq)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) { k_page[i] = 0.5f * seq + (float)(i & 127); v_page[i] = -k_page[i]; }
}

class KvPagePool {
public:
    KvPagePool(int device, size_t page_bytes, int max_pages)
    {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        size_t g = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&g, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        page_ = (page_bytes + g - 1) / g * g;
        reserved_ = page_ * max_pages;
        CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    }
    ~KvPagePool()
    {
        for (size_t i = 0; i < handles_.size(); ++i) {
            cuMemUnmap(base_ + i * page_, page_);
            cuMemRelease(handles_[i]);
        }
        cuMemAddressFree(base_, reserved_);
    }

    CUdeviceptr add_page()
    {
        CUmemGenericAllocationHandle h;
        CU_CHECK(cuMemCreate(&h, page_, &prop_, 0));
        CUdeviceptr va = base_ + handles_.size() * page_;
        CU_CHECK(cuMemMap(va, page_, 0, h, 0));
        handles_.push_back(h);
        return va;
    }

    // one driver call for every page mapped so far
    void commit()
    {
        CUmemAccessDesc acc = {};
        acc.location = prop_.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base_, handles_.size() * page_, &acc, 1));
    }

    size_t page_bytes() const { return page_; }

private:
    CUmemAllocationProp prop_ = {};
    size_t page_ = 0, reserved_ = 0;
    CUdeviceptr base_ = 0;
    std::vector<CUmemGenericAllocationHandle> handles_;
};

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

    {
        KvPagePool pool(0, size_t(2) << 20, 64);
        float* k_page = reinterpret_cast<float*>(pool.add_page());
        float* v_page = reinterpret_cast<float*>(pool.add_page());
        const size_t n = pool.page_bytes() / sizeof(float);
        const unsigned blocks = (unsigned)((n + 255) / 256);

        zero_pages<<<blocks, 256, 0, stream>>>(k_page, v_page, n); // EXPECT: vmm_lifecycle
        pool.commit();
        prefill<<<blocks, 256, 0, stream>>>(k_page, v_page, n, 7);
        cudaError_t err = cudaStreamSynchronize(stream);
        printf("kv pages: %s\n", cudaGetErrorString(err));
    }

    cudaStreamDestroy(stream);
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
