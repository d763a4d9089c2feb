// case: Telemetry ring buffer maps one physical allocation twice back to back (base, base+size) so a packer kernel can write wrapped records through the first view and read them back through the mirror in the same launch, with no fence.proxy.alias between the write and the read.
// expect: unfenced_vmm_alias=1
#include "vmm_util.h"
#include <cuda_runtime.h>
#include <vector>

// Each thread writes its record into slot (head + i) via the low view, then reads
// the record a neighbour wrote, through the mirror past the end of the ring.
__global__ void pack_records(unsigned* low, const unsigned* mirror, unsigned* checksum,
                             size_t ring_words, size_t head, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    size_t slot = (head + i) % ring_words;
    low[slot] = 0x9e3779b9u ^ (unsigned)i;
    __syncthreads();
    size_t peer = (head + (size_t)((i + 1) % n)) % ring_words;   // same bytes, seen through the mirror
    atomicAdd(checksum, mirror[peer]);
}

int main()
{
    DRV(cuInit(0));
    CUdevice dev; DRV(cuDeviceGet(&dev, 0));
    CUcontext ctx; DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = device_prop(0);
    size_t gran = 0;
    DRV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t size = round_up(4 << 20, gran);

    CUmemGenericAllocationHandle phys;
    DRV(cuMemCreate(&phys, size, &prop, 0));
    CUdeviceptr base;
    DRV(cuMemAddressReserve(&base, 2 * size, 0, 0, 0));
    DRV(cuMemMap(base, size, 0, phys, 0));
    DRV(cuMemMap(base + size, size, 0, phys, 0));

    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV(cuMemSetAccess(base, 2 * size, &access, 1));

    unsigned* d_sum;
    cudaMalloc(&d_sum, sizeof(unsigned));
    cudaMemset(d_sum, 0, sizeof(unsigned));

    const size_t ring_words = size / sizeof(unsigned);
    const int n = 1 << 16;
    size_t head = ring_words - 1000;    // close to the end: records wrap
    pack_records<<<n / 256, 256>>>((unsigned*)base, (const unsigned*)(base + size), d_sum, ring_words, head, n);

    unsigned sum = 0;
    cudaMemcpy(&sum, d_sum, sizeof(unsigned), cudaMemcpyDeviceToHost);
    std::printf("checksum %08x\n", sum);

    cudaFree(d_sum);
    DRV(cuMemUnmap(base, size));
    DRV(cuMemUnmap(base + size, size));
    DRV(cuMemRelease(phys));
    DRV(cuMemAddressFree(base, 2 * size));
    DRV(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
