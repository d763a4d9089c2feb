// case: driver-API checkpointing that snapshots the state buffer with cuMemcpyDtoD before the state was ever uploaded (the upload went to the snapshot), then reads the snapshot back.
// expect: uninitialized_device_read=1
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define DRV(call) do { CUresult r = (call); if (r != CUDA_SUCCESS) { \
    const char* msg; cuGetErrorString(r, &msg); fprintf(stderr, "%s: %s\n", #call, msg); exit(1); } } while (0)

#define STATE_ELEMS 8192
#define STATE_BYTES (STATE_ELEMS * sizeof(double))

typedef struct {
    CUdeviceptr state;
    CUdeviceptr snapshot;
} Checkpointer;

static void checkpointer_init(Checkpointer* cp)
{
    DRV(cuMemAlloc(&cp->state, STATE_BYTES));
    DRV(cuMemAlloc(&cp->snapshot, STATE_BYTES));
}

static void checkpointer_destroy(Checkpointer* cp)
{
    DRV(cuMemFree(cp->state));
    DRV(cuMemFree(cp->snapshot));
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    DRV(cuInit(0));
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));

    double* host_state = (double*)malloc(STATE_BYTES);
    double* restored = (double*)malloc(STATE_BYTES);
    for (int i = 0; i < STATE_ELEMS; ++i) host_state[i] = 1.0 / (i + 1);

    Checkpointer cp;
    checkpointer_init(&cp);

    DRV(cuMemcpyHtoD(cp.snapshot, host_state, STATE_BYTES));
    DRV(cuMemcpyDtoD(cp.snapshot, cp.state, STATE_BYTES)); // EXPECT: uninitialized_device_read
    DRV(cuMemcpyDtoH(restored, cp.snapshot, STATE_BYTES));

    int mismatches = 0;
    for (int i = 0; i < STATE_ELEMS; ++i)
        if (restored[i] != host_state[i]) ++mismatches;
    printf("restore mismatches: %d\n", mismatches);

    checkpointer_destroy(&cp);
    free(host_state);
    free(restored);
    DRV(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
