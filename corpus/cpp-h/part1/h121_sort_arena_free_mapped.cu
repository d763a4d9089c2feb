// case: Radix-sort scratch arena built on VMM (reserve, create, map, set access) is torn down with cuMemRelease and cuMemAddressFree but never cuMemUnmap, so the reserved range is freed while still mapped.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#define CHECK_DRV(x) do { CUresult rr = (x); if (rr != CUDA_SUCCESS) { std::fprintf(stderr, "%s -> %d\n", #x, (int)rr); return 1; } } while (0)

#define DIE_ON(x) do { CUresult rr = (x); if (rr != CUDA_SUCCESS) { std::fprintf(stderr, "%s -> %d\n", #x, (int)rr); std::exit(1); } } while (0)

#ifndef ARENA_MB
#define ARENA_MB 256
#endif

__global__ void histogram_digit(const uint32_t* keys, unsigned* hist, int n, int shift)
{
    __shared__ unsigned local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[(keys[i] >> shift) & 0xff], 1u);
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

class ScratchArena {
public:
    void init(int device, size_t bytes)
    {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t g = 0;
        DIE_ON(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = (bytes + g - 1) / g * g;
        DIE_ON(cuMemAddressReserve(&base_, size_, 0, 0, 0));
        DIE_ON(cuMemCreate(&handle_, size_, &prop, 0));
        DIE_ON(cuMemMap(base_, size_, 0, handle_, 0));
        CUmemAccessDesc d = {};
        d.location = prop.location;
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DIE_ON(cuMemSetAccess(base_, size_, &d, 1));
    }
    void destroy()
    {
        cuMemRelease(handle_);
        cuMemAddressFree(base_, size_);
    }
    template <typename T> T* at(size_t offset) const { return reinterpret_cast<T*>(base_ + offset); }
private:
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

int main()
{
    CHECK_DRV(cuInit(0));
    cudaFree(0);
    const int n = 1 << 24;
    std::vector<uint32_t> keys(n);
    for (int i = 0; i < n; ++i) keys[i] = (uint32_t)i * 2246822519u;

    ScratchArena arena;
    arena.init(0, (size_t)ARENA_MB << 20);
    uint32_t* d_keys = arena.at<uint32_t>(0);
    unsigned* d_hist = arena.at<unsigned>((size_t)n * sizeof(uint32_t));

    cudaMemcpy(d_keys, keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice);
    cudaMemset(d_hist, 0, 256 * sizeof(unsigned));
    histogram_digit<<<1024, 256>>>(d_keys, d_hist, n, 24);
    unsigned hist[256];
    cudaMemcpy(hist, d_hist, sizeof(hist), cudaMemcpyDeviceToHost);
    std::printf("top digit 0x00 count: %u, 0xff count: %u\n", hist[0], hist[255]);

    arena.destroy();
    return 0;
}
