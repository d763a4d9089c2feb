// case: fp16 activation buffer allocated with cuMemAlloc for N halves and filled with 1.0 (0x3C00) by cuMemsetD16 given the element count N, then read back with its exact byte size
// expect: none
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define N_ELEMS (1 << 20)
#define HALF_ONE 0x3C00

static void cu_check(CUresult r, const char *what)
{
    if (r != CUDA_SUCCESS) {
        const char *name = "unknown";
        cuGetErrorName(r, &name);
        std::fprintf(stderr, "%s failed: %s\n", what, name);
        std::exit(EXIT_FAILURE);
    }
}

__global__ void scale_half(__half *x, __half s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = __hmul(x[i], s);
}

int main()
{
    cu_check(cuInit(0), "cuInit");
    CUdevice dev;
    CUcontext ctx;
    cu_check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    cu_check(cuDevicePrimaryCtxRetain(&ctx, dev), "retain");
    cu_check(cuCtxSetCurrent(ctx), "set current");

    CUdeviceptr d_act;
    cu_check(cuMemAlloc(&d_act, N_ELEMS * sizeof(uint16_t)), "cuMemAlloc");
    cu_check(cuMemsetD16(d_act, HALF_ONE, N_ELEMS), "cuMemsetD16");

    scale_half<<<N_ELEMS / 256, 256>>>(reinterpret_cast<__half *>(d_act), __float2half(0.5f), N_ELEMS);
    cu_check(cuCtxSynchronize(), "sync");

    uint16_t *h_act = static_cast<uint16_t *>(std::malloc(N_ELEMS * sizeof(uint16_t)));
    cu_check(cuMemcpyDtoH(h_act, d_act, N_ELEMS * sizeof(uint16_t)), "download");

    int wrong = 0;
    for (int i = 0; i < N_ELEMS; ++i) wrong += h_act[i] != 0x3800;  // 0.5 in fp16
    std::printf("%d elements differ from 0.5\n", wrong);

    std::free(h_act);
    cu_check(cuMemFree(d_act), "cuMemFree");
    cu_check(cuDevicePrimaryCtxRelease(dev), "release");
    return 0;
}
