// case: a GrowableBuffer (header) reserves a VA range and maps chunks at its end, granting access to each new mapping before use and releasing each handle right after mapping (legal); the program grows it twice, then fills both parts, reads it back after synchronizing, and the destructor unmaps before freeing the range: correct.
// expect: none
#include <cstdio>
#include <cuda_runtime.h>
#include "growable_buffer.h"

__global__ void fill(int* v, int value, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) v[i] = value;
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    int* h_check;
    CU_CHECK(cuMemAllocHost((void**)&h_check, 4 * sizeof(int)));
    {
        GrowableBuffer buf(0, 1u << 30);
        if (!buf.grow(32u << 20)) return 1;
        size_t n1 = buf.mapped() / sizeof(int);
        if (!buf.grow(32u << 20)) return 1;
        size_t n2 = buf.mapped() / sizeof(int);

        fill<<<(unsigned)((n1 + 255) / 256), 256, 0, (cudaStream_t)stream>>>((int*)buf.base(), 1, n1);
        fill<<<(unsigned)((n2 - n1 + 255) / 256), 256, 0, (cudaStream_t)stream>>>((int*)buf.base() + n1, 2, n2 - n1);

        CU_CHECK(cuMemcpyDtoHAsync(h_check, buf.base(), sizeof(int), stream));
        CU_CHECK(cuMemcpyDtoHAsync(h_check + 1, buf.base() + (n2 - 1) * sizeof(int), sizeof(int), stream));
        CU_CHECK(cuStreamSynchronize(stream));
        printf("first %d last %d\n", h_check[0], h_check[1]);
    }
    CU_CHECK(cuMemFreeHost(h_check));
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
