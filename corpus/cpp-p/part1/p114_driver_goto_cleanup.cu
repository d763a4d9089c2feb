// case: driver-API pipeline with goto-style error handling: every failure jumps to one cleanup block that first synchronizes the stream (so no copy is in flight) and then frees each resource with its own allocator's free; the success path reads the pinned result after cuStreamSynchronize: correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

static int run(const char* cubin, int n) {
    int rc = 1;
    CUresult err;
    CUmodule mod = nullptr;
    CUfunction kern = nullptr;
    CUstream stream = nullptr;
    float* h_buf = nullptr;
    CUdeviceptr d_in = 0, d_out = 0;
    size_t bytes = (size_t)n * sizeof(float);
    void* args[3];
    double sum = 0.0;

    err = cuModuleLoad(&mod, cubin);
    if (err != CUDA_SUCCESS) goto cleanup;
    err = cuModuleGetFunction(&kern, mod, "scale");
    if (err != CUDA_SUCCESS) goto cleanup;
    err = cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
    if (err != CUDA_SUCCESS) goto cleanup;
    err = cuMemHostAlloc((void**)&h_buf, bytes, CU_MEMHOSTALLOC_PORTABLE);
    if (err != CUDA_SUCCESS) goto cleanup;
    err = cuMemAlloc(&d_in, bytes);
    if (err != CUDA_SUCCESS) goto cleanup;
    err = cuMemAlloc(&d_out, bytes);
    if (err != CUDA_SUCCESS) goto cleanup;

    for (int i = 0; i < n; ++i) h_buf[i] = (float)i;
    err = cuMemcpyHtoDAsync(d_in, h_buf, bytes, stream);
    if (err != CUDA_SUCCESS) goto cleanup;
    args[0] = &d_in;
    args[1] = &d_out;
    args[2] = &n;
    err = cuLaunchKernel(kern, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr);
    if (err != CUDA_SUCCESS) goto cleanup;
    err = cuMemcpyDtoHAsync(h_buf, d_out, bytes, stream);
    if (err != CUDA_SUCCESS) goto cleanup;
    err = cuStreamSynchronize(stream);
    if (err != CUDA_SUCCESS) goto cleanup;

    for (int i = 0; i < n; ++i) sum += h_buf[i];
    printf("sum %f\n", sum);
    rc = 0;

cleanup:
    if (stream) {
        cuStreamSynchronize(stream);
        cuStreamDestroy(stream);
    }
    if (d_out) cuMemFree(d_out);
    if (d_in) cuMemFree(d_in);
    if (h_buf) cuMemFreeHost(h_buf);
    if (mod) cuModuleUnload(mod);
    if (rc != 0) fprintf(stderr, "pipeline failed: %d\n", (int)err);
    return rc;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : (1 << 20);
    if (cuInit(0) != CUDA_SUCCESS) return 1;
    CUdevice dev;
    CUcontext ctx;
    if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS) return 1;
    if (cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS) return 1;
    cuCtxSetCurrent(ctx);
    int rc = run("scale.cubin", n);
    cuDevicePrimaryCtxRelease(dev);
    return rc;
}
