// case: a weather model's growable VMM field pool maps four chunks into one reservation, grants access to each chunk right after mapping it, releases each handle at once (allowed: the memory lives until unmapped), and at teardown synchronizes, unmaps every chunk and only then frees the reservation: correct.
// expect: none
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorName(r_, &s_); std::fprintf(stderr, "%s -> %s\n", #x, s_); std::exit(1); } } while (0)

__global__ void relax(float* t, size_t n, float alpha) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i > 0 && i + 1 < n) t[i] += alpha * (t[i - 1] - 2.f * t[i] + t[i + 1]);
}

class FieldPool {
public:
    static constexpr int kChunks = 4;

    explicit FieldPool(CUstream stream) : stream_(stream) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        chunk_ *= 8;
        CU_CHECK(cuMemAddressReserve(&base_, chunk_ * kChunks, 0, 0, 0));
        for (int i = 0; i < kChunks; ++i) grow();
    }

    ~FieldPool() {
        cuStreamSynchronize(stream_);
        for (size_t off = 0; off < mapped_; off += chunk_) cuMemUnmap(base_ + off, chunk_);
        mapped_ = 0;
        cuMemAddressFree(base_, chunk_ * kChunks);
    }

    float* data() const { return reinterpret_cast<float*>(base_); }
    size_t elems() const { return mapped_ / sizeof(float); }

private:
    void grow() {
        CUmemGenericAllocationHandle h;
        CU_CHECK(cuMemCreate(&h, chunk_, &prop_, 0));
        CUdeviceptr at = base_ + mapped_;
        CU_CHECK(cuMemMap(at, chunk_, 0, h, 0));
        CU_CHECK(cuMemRelease(h));   // the mapping keeps the physical memory alive
        CUmemAccessDesc acc = {};
        acc.location = prop_.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(at, chunk_, &acc, 1));
        mapped_ += chunk_;
    }

    CUstream stream_;
    CUmemAllocationProp prop_ = {};
    CUdeviceptr base_ = 0;
    size_t chunk_ = 0;
    size_t mapped_ = 0;
};

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    {
        FieldPool pool(stream);
        CU_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(pool.data()), 0, pool.elems(), stream));
        for (int step = 0; step < 100; ++step)
            relax<<<unsigned((pool.elems() + 255) / 256), 256, 0, stream>>>(pool.data(), pool.elems(), 0.1f);
        float probe[16] = {};
        CU_CHECK(cuMemcpyDtoHAsync(probe, reinterpret_cast<CUdeviceptr>(pool.data()), sizeof(probe), stream));
        CU_CHECK(cuStreamSynchronize(stream));
        std::printf("T[0..1] = %f %f\n", probe[0], probe[1]);
    }
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
