// case: an expandable activation arena (as in expandable-segment allocators) reserves a large VA range once, maps granularity-sized chunks on demand and grants access to each new chunk right after mapping it; work is synchronized before readback and teardown unmaps every chunk, releases the handles and only then frees the range, so the VMM usage is correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(expr)                                                           \
    do {                                                                         \
        CUresult r_ = (expr);                                                    \
        if (r_ != CUDA_SUCCESS) {                                                \
            const char* s_ = nullptr;                                            \
            cuGetErrorName(r_, &s_);                                             \
            fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #expr, s_);  \
            std::abort();                                                        \
        }                                                                        \
    } while (0)

class ExpandableArena {
public:
    ExpandableArena(CUdevice dev, size_t max_bytes) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = dev;
        CU_CHECK(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        reserved_ = (max_bytes + chunk_ - 1) / chunk_ * chunk_;
        CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }

    ~ExpandableArena() {
        for (size_t i = handles_.size(); i-- > 0;) {
            CU_CHECK(cuMemUnmap(base_ + i * chunk_, chunk_));
            CU_CHECK(cuMemRelease(handles_[i]));
        }
        CU_CHECK(cuMemAddressFree(base_, reserved_));
    }

    ExpandableArena(const ExpandableArena&) = delete;
    ExpandableArena& operator=(const ExpandableArena&) = delete;

    // Makes [base, base + bytes) usable and returns base.
    CUdeviceptr ensure(size_t bytes) {
        if (bytes > reserved_) {
            fprintf(stderr, "arena exhausted\n");
            std::abort();
        }
        while (mapped_ < bytes) {
            CUmemGenericAllocationHandle h;
            CU_CHECK(cuMemCreate(&h, chunk_, &prop_, 0));
            CU_CHECK(cuMemMap(base_ + mapped_, chunk_, 0, h, 0));
            CU_CHECK(cuMemSetAccess(base_ + mapped_, chunk_, &access_, 1));
            handles_.push_back(h);
            mapped_ += chunk_;
        }
        return base_;
    }

    size_t mapped() const { return mapped_; }

private:
    CUmemAllocationProp prop_{};
    CUmemAccessDesc access_{};
    CUdeviceptr base_ = 0;
    size_t chunk_ = 0;
    size_t reserved_ = 0;
    size_t mapped_ = 0;
    std::vector<CUmemGenericAllocationHandle> handles_;
};

__global__ void fill_iota(float* p, size_t n, float scale) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) p[i] = float(i) * scale;
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    float last = 0.f;
    {
        ExpandableArena arena(dev, size_t(1) << 30);

        size_t n = size_t(3) << 20;  // 12 MiB of floats
        CUdeviceptr act = arena.ensure(n * sizeof(float));
        CU_CHECK(cuMemsetD32Async(act, 0, n, stream));
        fill_iota<<<unsigned((n + 255) / 256), 256, 0, stream>>>(reinterpret_cast<float*>(act), n, 1.f);

        // a longer sequence arrives: grow in place, earlier chunks keep their contents
        n = size_t(20) << 20;  // 80 MiB
        act = arena.ensure(n * sizeof(float));
        fill_iota<<<unsigned((n + 255) / 256), 256, 0, stream>>>(reinterpret_cast<float*>(act), n, 0.5f);
        CU_CHECK(cuStreamSynchronize(stream));

        CU_CHECK(cuMemcpyDtoH(&last, act + (n - 1) * sizeof(float), sizeof(float)));
        printf("mapped %zu MiB, last activation %.1f\n", arena.mapped() >> 20, last);
    }

    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
