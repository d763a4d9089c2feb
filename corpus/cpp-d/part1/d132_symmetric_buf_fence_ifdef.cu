// case: NCCL-style custom all-reduce staging: one physical buffer is mapped as a local view and as a "symmetric" view; the pack kernel writes through the local view and reads back through the symmetric one, and its fence.proxy.alias is compiled only under CUSTOM_AR_ALIAS_FENCE, which nothing defines, so the default build has no fence.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorName(r_, &s_);                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?");      \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

// local: this rank's view for writes; sym: the view peers and the reducer read through
__global__ void pack_and_reduce(float* local, const float* sym, const float* grad, float* out,
                                int n, float scale)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    local[i] = grad[i] * scale;
#ifdef CUSTOM_AR_ALIAS_FENCE
    asm volatile("fence.proxy.alias;" ::: "memory");
#endif
    out[i] = out[i] + sym[i];
}

static CUdeviceptr map_granted(CUmemGenericAllocationHandle h, size_t size, const CUmemAllocationProp& prop)
{
    CUdeviceptr va = 0;
    CU_CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CU_CHECK(cuMemMap(va, size, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(va, size, &acc, 1));
    return va;
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    const int n = 1 << 22;
    const size_t size = ((size_t)n * sizeof(float) + gran - 1) / gran * gran;

    CUmemGenericAllocationHandle h;
    CU_CHECK(cuMemCreate(&h, size, &prop, 0));
    CUdeviceptr local_va = map_granted(h, size, prop);
    CUdeviceptr sym_va = map_granted(h, size, prop);

    float *d_grad = nullptr, *d_out = nullptr;
    cudaMalloc(&d_grad, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMemsetAsync(d_grad, 0, n * sizeof(float), s);
    cudaMemsetAsync(d_out, 0, n * sizeof(float), s);

    pack_and_reduce<<<n / 256, 256, 0, s>>>(reinterpret_cast<float*>(local_va), reinterpret_cast<const float*>(sym_va), d_grad, d_out, n, 0.5f); // EXPECT: unfenced_vmm_alias
    cudaError_t err = cudaStreamSynchronize(s);
    printf("all-reduce pack: %s\n", cudaGetErrorString(err));

    cudaFree(d_grad);
    cudaFree(d_out);
    cudaStreamDestroy(s);
    CU_CHECK(cuMemUnmap(local_va, size));
    CU_CHECK(cuMemUnmap(sym_va, size));
    CU_CHECK(cuMemRelease(h));
    CU_CHECK(cuMemAddressFree(local_va, size));
    CU_CHECK(cuMemAddressFree(sym_va, size));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
