// case: a lattice gauge code maps its link field at an update view and a read-only measurement view; the heat-bath kernel writes a link through one view and reads it back through the other, with fence.proxy.alias between the two accesses
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define DRV_CHECK(call)                                                                   \
    do {                                                                                  \
        CUresult st_ = (call);                                                            \
        if (st_ != CUDA_SUCCESS) {                                                        \
            const char* s_ = nullptr;                                                     \
            cuGetErrorString(st_, &s_);                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "unknown");  \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

struct Link { float re[4], im[4]; };   // truncated SU(2) parametrisation

__device__ inline float link_trace(const Link& u) { return u.re[0] + u.re[3]; }

// One thread per site. The new link is stored through `upd`; the local action is then
// evaluated from `meas`, which aliases the same physical memory.
__global__ void heatbath_sweep(Link* upd, const Link* meas, float* local_action, int volume, float beta, unsigned seed) {
    int site = blockIdx.x * blockDim.x + threadIdx.x;
    if (site >= volume) return;
    unsigned s = seed ^ (site * 2654435761u);
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    float a0 = 0.5f + 0.5f * (s & 0xFFFF) / 65535.f;
    Link u = upd[site];
    u.re[0] = a0;
    u.re[3] = a0;
    u.im[1] = 1.f - a0;
    upd[site] = u;
    asm volatile("fence.proxy.alias;" ::: "memory");
    local_action[site] = beta * (1.f - 0.5f * link_trace(meas[site]));
}

int main() {
    DRV_CHECK(cuInit(0));
    CUdevice dev; DRV_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx; DRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev)); DRV_CHECK(cuCtxSetCurrent(ctx));

    const int L = 32, volume = L * L * L * L;
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    DRV_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t bytes = ((size_t)volume * sizeof(Link) + gran - 1) / gran * gran;

    CUmemGenericAllocationHandle links;
    CUdeviceptr upd_va = 0, meas_va = 0;
    DRV_CHECK(cuMemCreate(&links, bytes, &prop, 0));
    DRV_CHECK(cuMemAddressReserve(&upd_va, bytes, 0, 0, 0));
    DRV_CHECK(cuMemAddressReserve(&meas_va, bytes, 0, 0, 0));
    DRV_CHECK(cuMemMap(upd_va, bytes, 0, links, 0));
    DRV_CHECK(cuMemMap(meas_va, bytes, 0, links, 0));
    CUmemAccessDesc rw = {}, ro = {};
    rw.location = ro.location = prop.location;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    ro.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
    DRV_CHECK(cuMemSetAccess(upd_va, bytes, &rw, 1));
    DRV_CHECK(cuMemSetAccess(meas_va, bytes, &ro, 1));

    float* d_action = nullptr;
    cudaMalloc(&d_action, volume * sizeof(float));
    cudaMemset(reinterpret_cast<void*>(upd_va), 0, bytes);
    cudaDeviceSynchronize();

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    for (int sweep = 0; sweep < 20; ++sweep)
        heatbath_sweep<<<(volume + 127) / 128, 128, 0, s>>>(reinterpret_cast<Link*>(upd_va),
                                                            reinterpret_cast<const Link*>(meas_va),
                                                            d_action, volume, 2.3f, 1234u + sweep);
    float first = 0.f;
    cudaMemcpyAsync(&first, d_action, sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    std::printf("local action at site 0: %f\n", first);

    cudaStreamDestroy(s);
    cudaFree(d_action);
    DRV_CHECK(cuMemUnmap(meas_va, bytes));
    DRV_CHECK(cuMemUnmap(upd_va, bytes));
    DRV_CHECK(cuMemRelease(links));
    DRV_CHECK(cuMemAddressFree(meas_va, bytes));
    DRV_CHECK(cuMemAddressFree(upd_va, bytes));
    return 0;
}
