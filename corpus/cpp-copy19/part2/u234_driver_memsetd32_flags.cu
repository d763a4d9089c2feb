// case: driver-API bookkeeping where a status-flag buffer from cuMemAlloc is cleared with cuMemsetD32 and a DtoD copy duplicates the uploaded data before both are read back with cuMemcpyDtoH.
// expect: none
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define CU_CHECK(x) do { CUresult res = (x); if (res != CUDA_SUCCESS) { \
    const char* name = NULL; cuGetErrorName(res, &name); \
    fprintf(stderr, "%s failed: %s\n", #x, name ? name : "?"); exit(EXIT_FAILURE); } } while (0)

#define NUM_JOBS 4096

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuInit(0));
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    unsigned int* h_flags = (unsigned int*)malloc(NUM_JOBS * sizeof(unsigned int));
    float* h_payload = (float*)malloc(NUM_JOBS * sizeof(float));
    float* h_copy = (float*)malloc(NUM_JOBS * sizeof(float));
    for (int i = 0; i < NUM_JOBS; ++i) h_payload[i] = 0.5f * i;

    CUdeviceptr d_flags, d_payload, d_mirror;
    CU_CHECK(cuMemAlloc(&d_flags, NUM_JOBS * sizeof(unsigned int)));
    CU_CHECK(cuMemAlloc(&d_payload, NUM_JOBS * sizeof(float)));
    CU_CHECK(cuMemAlloc(&d_mirror, NUM_JOBS * sizeof(float)));

    CU_CHECK(cuMemsetD32(d_flags, 0xFFFFFFFFu, NUM_JOBS));
    CU_CHECK(cuMemcpyHtoD(d_payload, h_payload, NUM_JOBS * sizeof(float)));
    CU_CHECK(cuMemcpyDtoD(d_mirror, d_payload, NUM_JOBS * sizeof(float)));

    CU_CHECK(cuMemcpyDtoH(h_flags, d_flags, NUM_JOBS * sizeof(unsigned int)));
    CU_CHECK(cuMemcpyDtoH(h_copy, d_mirror, NUM_JOBS * sizeof(float)));

    int pending = 0, diff = 0;
    for (int i = 0; i < NUM_JOBS; ++i) {
        if (h_flags[i] == 0xFFFFFFFFu) ++pending;
        if (h_copy[i] != h_payload[i]) ++diff;
    }
    printf("pending jobs: %d, mirror differences: %d\n", pending, diff);

    CU_CHECK(cuMemFree(d_flags));
    CU_CHECK(cuMemFree(d_payload));
    CU_CHECK(cuMemFree(d_mirror));
    free(h_flags);
    free(h_payload);
    free(h_copy);
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
