// case: A log-packet ring maps one allocation at base and base + size; the kernel stores each packet through the primary view, executes fence.proxy.alias, and then reads the very element it stored through the mirror view to emit a contiguous window, which the CUDA guide defines as correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s failed (%d)\n", #x, (int)r_); std::exit(1); } } while (0)

constexpr int kBatch = 8192;

__global__ void append_packets(unsigned* ring, const unsigned* mirror_window, const unsigned* packets,
                               unsigned* out, int cap, int head, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int slot = (head + i) % cap;
    ring[slot] = packets[i] ^ 0xA5A5A5A5u;                 // store through the primary mapping
    asm volatile("fence.proxy.alias;" ::: "memory");        // order it for the other virtual alias
    // mirror_window = primary + head: contiguous even past the end; element i is ring[slot]
    out[i] = mirror_window[i] + 1u;
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t size = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUmemGenericAllocationHandle h;
    CUdeviceptr base;
    CU_CHECK(cuMemCreate(&h, size, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&base, 2 * size, 0, 0, 0));
    CU_CHECK(cuMemMap(base, size, 0, h, 0));
    CU_CHECK(cuMemMap(base + size, size, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base, size, &acc, 1));
    CU_CHECK(cuMemSetAccess(base + size, size, &acc, 1));

    const int cap = (int)(size / sizeof(unsigned));
    unsigned *d_packets, *d_out, *h_out;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMalloc(&d_packets, kBatch * sizeof(unsigned));
    cudaMalloc(&d_out, kBatch * sizeof(unsigned));
    cudaMallocHost(&h_out, kBatch * sizeof(unsigned));
    cudaMemsetAsync(d_packets, 0x11, kBatch * sizeof(unsigned), s);

    unsigned* ring = reinterpret_cast<unsigned*>(base);
    int head = cap - kBatch / 2; // the first batch already runs across the end of the primary view
    for (int batch = 0; batch < 64; ++batch) {
        append_packets<<<kBatch / 256, 256, 0, s>>>(ring, ring + head, d_packets, d_out, cap, head, kBatch);
        head = (head + kBatch) % cap;
    }
    cudaMemcpyAsync(h_out, d_out, kBatch * sizeof(unsigned), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    std::printf("last packet word: %08x\n", h_out[kBatch - 1]);

    cudaFreeHost(h_out);
    cudaFree(d_out);
    cudaFree(d_packets);
    cudaStreamDestroy(s);
    CU_CHECK(cuMemUnmap(base + size, size));
    CU_CHECK(cuMemUnmap(base, size));
    CU_CHECK(cuMemRelease(h));
    CU_CHECK(cuMemAddressFree(base, 2 * size));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
