// case: Driver-API particle pool reserves a VA range, maps a physical chunk and clears it with cuMemsetD32Async before cuMemSetAccess has granted the device access (the grant comes later, before the kernel); teardown is in the right order.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define CU(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* m; cuGetErrorName(r, &m); \
    fprintf(stderr, "%s failed: %s\n", #x, m); exit(1); } } while (0)

static const char* kPtx =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry seed(.param .u64 p, .param .u32 n) {\n"
    "  .reg .pred %p<2>; .reg .u32 %r<4>; .reg .u64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x; setp.ge.u32 %p1, %r2, %r1; @%p1 ret;\n"
    "  cvta.to.global.u64 %rd2, %rd1; mul.wide.u32 %rd3, %r2, 4; add.u64 %rd2, %rd2, %rd3;\n"
    "  st.global.u32 [%rd2], %r2; ret; }\n";

int main(void)
{
    CUdevice dev; CUcontext ctx; CUstream stream; CUmodule mod; CUfunction seed;
    CU(cuInit(0));
    CU(cuDeviceGet(&dev, 0));
    CU(cuCtxCreate(&ctx, 0, dev));
    CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CU(cuModuleLoadData(&mod, kPtx));
    CU(cuModuleGetFunction(&seed, mod, "seed"));

    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = (int)dev;
    size_t gran;
    CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    size_t bytes = ((64u << 20) + gran - 1) / gran * gran;

    CUdeviceptr pool;
    CUmemGenericAllocationHandle chunk;
    CU(cuMemAddressReserve(&pool, bytes, 0, 0, 0));
    CU(cuMemCreate(&chunk, bytes, &prop, 0));
    CU(cuMemMap(pool, bytes, 0, chunk, 0));

    /* zero the pool before handing it out */
    CU(cuMemsetD32Async(pool, 0, bytes / 4, stream));

    CUmemAccessDesc rw;
    rw.location = prop.location;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(pool, bytes, &rw, 1));

    unsigned n = 1024;
    void* args[] = { &pool, &n };
    CU(cuLaunchKernel(seed, 1, 1, 1, n, 1, 1, 0, stream, args, NULL));

    unsigned probe[16];
    CU(cuMemcpyDtoHAsync(probe, pool, sizeof(probe), stream));
    CU(cuStreamSynchronize(stream));
    printf("probe[5] = %u\n", probe[5]);

    CU(cuMemUnmap(pool, bytes));
    CU(cuMemRelease(chunk));
    CU(cuMemAddressFree(pool, bytes));
    CU(cuModuleUnload(mod));
    CU(cuStreamDestroy(stream));
    CU(cuCtxDestroy(ctx));
    return 0;
}
