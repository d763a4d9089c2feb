// case: a driver-API reduction reads the partial sums back with cuMemcpyHtoD (cast pointers) instead of cuMemcpyDtoH, naming the malloc buffer as the device destination and the cuMemAlloc source as host.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define DRV(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    const char* s_; cuGetErrorString(r_, &s_); fprintf(stderr, "%s\n", s_); exit(1); } } while (0)

int main(int argc, char** argv) {
    const char* ptxPath = argc > 1 ? argv[1] : "reduce.ptx";
    const int n = 1 << 20, blocks = 256;
    DRV(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuCtxCreate(&ctx, 0, dev));
    CUmodule mod;
    CUfunction reduce;
    DRV(cuModuleLoad(&mod, ptxPath));
    DRV(cuModuleGetFunction(&reduce, mod, "reduce_sum"));

    float* h_in = (float*)malloc(n * sizeof(float));
    float* h_partial = (float*)malloc(blocks * sizeof(float));
    for (int i = 0; i < n; ++i) h_in[i] = 1.0f;

    CUdeviceptr d_in, d_partial;
    DRV(cuMemAlloc(&d_in, n * sizeof(float)));
    DRV(cuMemAlloc(&d_partial, blocks * sizeof(float)));
    DRV(cuMemcpyHtoD(d_in, h_in, n * sizeof(float)));

    int count = n;
    void* args[] = {&d_in, &d_partial, &count};
    DRV(cuLaunchKernel(reduce, blocks, 1, 1, 256, 1, 1, 256 * sizeof(float), 0, args, 0));
    DRV(cuCtxSynchronize());

    DRV(cuMemcpyHtoD((CUdeviceptr)h_partial, (const void*)d_partial, // EXPECT: memcpy_kind_mismatch
                     blocks * sizeof(float)));

    double total = 0;
    for (int b = 0; b < blocks; ++b) total += h_partial[b];
    printf("sum = %.0f (expected %d)\n", total, n);

    DRV(cuMemFree(d_in));
    DRV(cuMemFree(d_partial));
    free(h_in);
    free(h_partial);
    DRV(cuModuleUnload(mod));
    DRV(cuCtxDestroy(ctx));
    return 0;
}
