// case: a GPU hash table keeps its slots at a fixed VMM address and "clears" itself between epochs by mapping a fresh physical allocation over its range, which is still mapped to the old one (cuMemUnmap is missing)
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CU_CALL(x)                                                                        \
    do {                                                                                  \
        CUresult r_ = (x);                                                                \
        if (r_ != CUDA_SUCCESS) {                                                         \
            const char* n_ = nullptr;                                                     \
            cuGetErrorName(r_, &n_);                                                      \
            std::fprintf(stderr, "hashtable: %s -> %s\n", #x, n_ ? n_ : "?");             \
        }                                                                                 \
    } while (0)

struct Slot { unsigned long long key; unsigned long long value; };

__global__ void insert_counts(Slot* slots, uint32_t mask, const uint64_t* keys, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long k = keys[i] + 1;   // 0 marks an empty slot
    uint32_t h = (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    while (true) {
        unsigned long long prev = atomicCAS(&slots[h].key, 0ull, k);
        if (prev == 0ull || prev == k) { atomicAdd(&slots[h].value, 1ull); return; }
        h = (h + 1) & mask;
    }
}

class EpochHashTable {
public:
    EpochHashTable(size_t min_slots, CUstream stream) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = 0;
        size_t gran = 0;
        CU_CALL(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_t slots = 1;
        while (slots < min_slots) slots <<= 1;
        bytes_ = (slots * sizeof(Slot) + gran - 1) / gran * gran;
        mask_ = (uint32_t)(bytes_ / sizeof(Slot) - 1);
        CU_CALL(cuMemAddressReserve(&base_, bytes_, 0, 0, 0));
        CU_CALL(cuMemCreate(&handle_, bytes_, &prop_, 0));
        CU_CALL(cuMemMap(base_, bytes_, 0, handle_, 0));
        grant();
        CU_CALL(cuMemsetD8Async(base_, 0, bytes_, stream));
    }

    ~EpochHashTable() {
        CU_CALL(cuMemUnmap(base_, bytes_));
        CU_CALL(cuMemRelease(handle_));
        CU_CALL(cuMemAddressFree(base_, bytes_));
    }

    // New epoch: swap in zeroed physical memory instead of memsetting gigabytes.
    void reset(CUstream stream) {
        CU_CALL(cuStreamSynchronize(stream));
        CUmemGenericAllocationHandle fresh;
        CU_CALL(cuMemCreate(&fresh, bytes_, &prop_, 0));
        CU_CALL(cuMemMap(base_, bytes_, 0, fresh, 0)); // EXPECT: vmm_lifecycle
        CU_CALL(cuMemRelease(handle_));
        handle_ = fresh;
        grant();
        CU_CALL(cuMemsetD8Async(base_, 0, bytes_, stream));
    }

    Slot* slots() const { return reinterpret_cast<Slot*>(base_); }
    uint32_t mask() const { return mask_; }

private:
    void grant() {
        CUmemAccessDesc acc = {};
        acc.location = prop_.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CALL(cuMemSetAccess(base_, bytes_, &acc, 1));
    }

    CUmemAllocationProp prop_ = {};
    CUdeviceptr base_ = 0;
    size_t bytes_ = 0;
    uint32_t mask_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

int main() {
    CU_CALL(cuInit(0));
    CUdevice dev; CU_CALL(cuDeviceGet(&dev, 0));
    CUcontext ctx; CU_CALL(cuDevicePrimaryCtxRetain(&ctx, dev)); CU_CALL(cuCtxSetCurrent(ctx));

    const int n = 1 << 20;
    uint64_t* d_keys = nullptr;
    cudaMalloc(&d_keys, n * sizeof(uint64_t));
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaMemsetAsync(d_keys, 0x11, n * sizeof(uint64_t), stream);
    {
        EpochHashTable table(4 * (size_t)n, stream);
        for (int epoch = 0; epoch < 3; ++epoch) {
            insert_counts<<<(n + 255) / 256, 256, 0, stream>>>(table.slots(), table.mask(), d_keys, n);
            table.reset(stream);
        }
        cudaStreamSynchronize(stream);
    }
    cudaStreamDestroy(stream);
    cudaFree(d_keys);
    std::puts("3 epochs counted");
    return 0;
}
