// case: an LLM KV-cache slot is evicted to pinned host memory (copy, synchronize, unmap, release) and later swapped back in at the same address with a new physical allocation, cuMemSetAccess called again before the upload touches it
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_OK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { std::fprintf(stderr, "%s -> %d\n", #x, (int)r); std::exit(1); } } while (0)
#define RT_OK(x) do { cudaError_t r = (x); if (r != cudaSuccess) { std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(r)); std::exit(1); } } while (0)

struct KvSlot {
    CUdeviceptr va = 0;
    size_t bytes = 0;
    CUmemGenericAllocationHandle handle = 0;
    bool resident = false;
};

static CUmemAllocationProp device_prop() {
    CUmemAllocationProp p = {};
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    return p;
}

static void make_resident(KvSlot& slot) {
    CUmemAllocationProp prop = device_prop();
    CU_OK(cuMemCreate(&slot.handle, slot.bytes, &prop, 0));
    CU_OK(cuMemMap(slot.va, slot.bytes, 0, slot.handle, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_OK(cuMemSetAccess(slot.va, slot.bytes, &acc, 1));
    slot.resident = true;
}

static void evict(KvSlot& slot, void* host_copy, cudaStream_t s) {
    RT_OK(cudaMemcpyAsync(host_copy, reinterpret_cast<void*>(slot.va), slot.bytes, cudaMemcpyDeviceToHost, s));
    RT_OK(cudaStreamSynchronize(s));
    CU_OK(cuMemUnmap(slot.va, slot.bytes));
    CU_OK(cuMemRelease(slot.handle));
    slot.resident = false;
}

__global__ void decode_append(float* kv, size_t n, int step) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) kv[i] += 0.001f * step;
}

int main() {
    CU_OK(cuInit(0));
    CUdevice dev; CU_OK(cuDeviceGet(&dev, 0));
    CUcontext ctx; CU_OK(cuDevicePrimaryCtxRetain(&ctx, dev)); CU_OK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = device_prop();
    size_t gran = 0;
    CU_OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));

    KvSlot slot;
    slot.bytes = 8 * gran;
    CU_OK(cuMemAddressReserve(&slot.va, slot.bytes, 0, 0, 0));
    make_resident(slot);

    void* host_copy = nullptr;
    RT_OK(cudaMallocHost(&host_copy, slot.bytes));
    cudaStream_t s;
    RT_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    const size_t n = slot.bytes / sizeof(float);
    RT_OK(cudaMemsetAsync(reinterpret_cast<void*>(slot.va), 0, slot.bytes, s));
    for (int step = 0; step < 8; ++step)
        decode_append<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(reinterpret_cast<float*>(slot.va), n, step);

    evict(slot, host_copy, s);            // request preempted
    // ... other requests use the freed HBM ...
    make_resident(slot);                  // request rescheduled: same address, new backing
    RT_OK(cudaMemcpyAsync(reinterpret_cast<void*>(slot.va), host_copy, slot.bytes, cudaMemcpyHostToDevice, s));
    for (int step = 8; step < 16; ++step)
        decode_append<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(reinterpret_cast<float*>(slot.va), n, step);
    RT_OK(cudaStreamSynchronize(s));

    float first = 0.f;
    RT_OK(cudaMemcpy(&first, reinterpret_cast<void*>(slot.va), sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("kv[0] after swap-in: %.3f\n", first);

    evict(slot, host_copy, s);
    CU_OK(cuMemAddressFree(slot.va, slot.bytes));
    RT_OK(cudaStreamDestroy(s));
    RT_OK(cudaFreeHost(host_copy));
    return 0;
}
