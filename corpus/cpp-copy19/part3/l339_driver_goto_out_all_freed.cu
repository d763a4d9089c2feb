// case: a driver-API copy test allocates a device buffer and a cuMemAllocHost buffer and releases both at an `out:` label that every error path jumps to
// expect: none
#include <stdio.h>
#include <string.h>
#include <cuda.h>

#define NWORDS (4 * 1024 * 1024)

static int roundtrip(CUdevice dev)
{
    int ret = 1;
    CUcontext ctx = NULL;
    CUdeviceptr dbuf = 0;
    unsigned int *hbuf = NULL;
    CUresult rc;
    size_t i;

    rc = cuCtxCreate(&ctx, 0, dev);
    if (rc != CUDA_SUCCESS) return 1;

    rc = cuMemAlloc(&dbuf, NWORDS * sizeof(unsigned int));
    if (rc != CUDA_SUCCESS) goto out;
    rc = cuMemAllocHost((void **)&hbuf, NWORDS * sizeof(unsigned int));
    if (rc != CUDA_SUCCESS) goto out;

    for (i = 0; i < NWORDS; i++) hbuf[i] = (unsigned int)(i ^ 0x5A5A5A5Au);
    rc = cuMemcpyHtoD(dbuf, hbuf, NWORDS * sizeof(unsigned int));
    if (rc != CUDA_SUCCESS) goto out;
    memset(hbuf, 0, NWORDS * sizeof(unsigned int));
    rc = cuMemcpyDtoH(hbuf, dbuf, NWORDS * sizeof(unsigned int));
    if (rc != CUDA_SUCCESS) goto out;

    for (i = 0; i < NWORDS; i++) {
        if (hbuf[i] != (unsigned int)(i ^ 0x5A5A5A5Au)) {
            fprintf(stderr, "mismatch at word %zu\n", i);
            goto out;
        }
    }
    ret = 0;

out:
    if (rc != CUDA_SUCCESS) {
        const char *msg = NULL;
        cuGetErrorString(rc, &msg);
        fprintf(stderr, "driver error: %s\n", msg ? msg : "?");
    }
    if (hbuf) cuMemFreeHost(hbuf);
    if (dbuf) cuMemFree(dbuf);
    cuCtxDestroy(ctx);
    return ret;
}

int main(void)
{
    CUdevice dev;
    int count = 0;
    if (cuInit(0) != CUDA_SUCCESS) return 1;
    if (cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) return 1;
    int failures = 0;
    for (int d = 0; d < count; d++) {
        if (cuDeviceGet(&dev, d) != CUDA_SUCCESS) return 1;
        int r = roundtrip(dev);
        printf("device %d: %s\n", d, r ? "FAILED" : "ok");
        failures += r;
    }
    return failures ? 1 : 0;
}
