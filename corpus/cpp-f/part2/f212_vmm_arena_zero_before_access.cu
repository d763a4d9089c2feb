// case: A growable VMM arena for a sparse-matrix assembler maps its first chunk and zeroes it through a ZERO_CHUNK macro (cuMemsetD32Async) before cuMemSetAccess grants the device access to that mapping.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define DRV(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* n_; cuGetErrorName(r_, &n_); \
    fprintf(stderr, "%s failed: %s\n", #x, n_); std::exit(1); } } while (0)
#define ZERO_CHUNK(ptr, bytes, stream) DRV(cuMemsetD32Async((ptr), 0u, (bytes) / 4, (stream)))

__global__ void csr_row_ptr_uniform(int* row_ptr, int rows, int nnz_per_row) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) row_ptr[r] = r * nnz_per_row;
}

class DeviceArena {
public:
    DeviceArena(size_t max_bytes, CUstream s) : stream_(s) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = 0;
        DRV(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        reserved_ = ((max_bytes + chunk_ - 1) / chunk_) * chunk_;
        DRV(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    }

    void init() {
        CUmemGenericAllocationHandle h;
        DRV(cuMemCreate(&h, chunk_, &prop_, 0));
        DRV(cuMemMap(base_, chunk_, 0, h, 0));
        handles_.push_back(h);
        ZERO_CHUNK(base_, chunk_, stream_);           // mapping has no access yet
        grant(base_, chunk_);
        mapped_ = chunk_;
    }

    CUdeviceptr alloc(size_t bytes) {
        size_t aligned = (bytes + 255) & ~size_t(255);
        if (used_ + aligned > mapped_) grow(used_ + aligned);
        CUdeviceptr p = base_ + used_;
        used_ += aligned;
        return p;
    }

    void release_all() {
        DRV(cuStreamSynchronize(stream_));
        DRV(cuMemUnmap(base_, mapped_));
        for (CUmemGenericAllocationHandle h : handles_) DRV(cuMemRelease(h));
        handles_.clear();
        DRV(cuMemAddressFree(base_, reserved_));
    }

private:
    void grant(CUdeviceptr p, size_t bytes) {
        CUmemAccessDesc d = {};
        d.location = prop_.location;
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DRV(cuMemSetAccess(p, bytes, &d, 1));
    }
    void grow(size_t need) {
        while (mapped_ < need) {
            CUmemGenericAllocationHandle h;
            DRV(cuMemCreate(&h, chunk_, &prop_, 0));
            DRV(cuMemMap(base_ + mapped_, chunk_, 0, h, 0));
            grant(base_ + mapped_, chunk_);
            handles_.push_back(h);
            mapped_ += chunk_;
        }
    }

    CUstream stream_;
    CUmemAllocationProp prop_ = {};
    CUdeviceptr base_ = 0;
    size_t chunk_ = 0, reserved_ = 0, mapped_ = 0, used_ = 0;
    std::vector<CUmemGenericAllocationHandle> handles_;
};

int main() {
    DRV(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));
    CUstream s;
    DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    DeviceArena arena(size_t(1) << 32, s);
    arena.init();
    CUdeviceptr row_ptr = arena.alloc((1 << 20) * sizeof(int));
    CUdeviceptr values = arena.alloc((16 << 20) * sizeof(double));
    DRV(cuMemsetD32Async(row_ptr, 0, 1 << 20, s));
    DRV(cuMemsetD32Async(values, 0, 32 << 20, s));
    csr_row_ptr_uniform<<<(1 << 20) / 256, 256, 0, (cudaStream_t)s>>>(reinterpret_cast<int*>(row_ptr), 1 << 20, 16);
    DRV(cuStreamSynchronize(s));
    printf("arena ready: row_ptr=%llx values=%llx\n", (unsigned long long)row_ptr, (unsigned long long)values);

    arena.release_all();
    DRV(cuStreamDestroy(s));
    DRV(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
