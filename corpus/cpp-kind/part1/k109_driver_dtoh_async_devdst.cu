// case: a driver-API solver snapshots its state into a second cuMemAlloc buffer with cuMemcpyDtoHAsync (device destination named as host) before copying the state correctly into pinned memory.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cuda.h>

static void check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) { fprintf(stderr, "%s failed (%d)\n", what, (int)r); }
}

int main() {
    const size_t n = 1 << 20;
    const size_t bytes = n * sizeof(double);
    check(cuInit(0), "cuInit");
    CUdevice dev;
    CUcontext ctx;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuCtxCreate(&ctx, 0, dev), "cuCtxCreate");
    CUstream stream;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

    CUdeviceptr d_state, d_snapshot;
    check(cuMemAlloc(&d_state, bytes), "cuMemAlloc state");
    check(cuMemAlloc(&d_snapshot, bytes), "cuMemAlloc snapshot");
    double* h_state;
    check(cuMemAllocHost((void**)&h_state, bytes), "cuMemAllocHost");
    for (size_t i = 0; i < n; ++i) h_state[i] = 1.0 / (i + 1);

    check(cuMemcpyHtoDAsync(d_state, h_state, bytes, stream), "upload");

    for (int iter = 0; iter < 10; ++iter) {
        // ... solver kernels launched on `stream` would update d_state here ...
        if (iter % 5 == 4) {
            check(cuMemcpyDtoHAsync((void*)d_snapshot, d_state, bytes, stream), // EXPECT: memcpy_kind_mismatch
                  "snapshot");
        }
    }

    check(cuMemcpyDtoHAsync(h_state, d_state, bytes, stream), "download");
    check(cuStreamSynchronize(stream), "sync");
    printf("h_state[0] = %f\n", h_state[0]);

    cuMemFreeHost(h_state);
    cuMemFree(d_snapshot);
    cuMemFree(d_state);
    cuStreamDestroy(stream);
    cuCtxDestroy(ctx);
    return 0;
}
