// case: a driver-API matrix transpose uploads with cuMemcpyHtoD and reads back with cuMemcpyDtoH / cuMemcpyDtoHAsync into malloc and pinned buffers, each in its right direction.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define DRV(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { fprintf(stderr, "%s -> %d\n", #x, (int)r); exit(1); } } while (0)

int main(int argc, char** argv) {
    const int N = 2048;
    const size_t bytes = (size_t)N * N * sizeof(float);
    DRV(cuInit(0));
    CUdevice dev; CUcontext ctx; CUmodule mod; CUfunction transpose;
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuCtxCreate(&ctx, 0, dev));
    DRV(cuModuleLoad(&mod, argc > 1 ? argv[1] : "transpose.cubin"));
    DRV(cuModuleGetFunction(&transpose, mod, "transpose32"));

    float* h_in = (float*)malloc(bytes);
    float* h_out = (float*)malloc(bytes);
    float* h_pinned;
    DRV(cuMemAllocHost((void**)&h_pinned, bytes));
    for (int i = 0; i < N * N; ++i) h_in[i] = (float)i;

    CUdeviceptr d_in, d_out;
    DRV(cuMemAlloc(&d_in, bytes));
    DRV(cuMemAlloc(&d_out, bytes));
    DRV(cuMemcpyHtoD(d_in, h_in, bytes));

    int n = N;
    void* args[] = {&d_out, &d_in, &n};
    DRV(cuLaunchKernel(transpose, N / 32, N / 32, 1, 32, 8, 1, 0, 0, args, 0));
    DRV(cuMemcpyDtoH(h_out, d_out, bytes));

    CUstream s;
    DRV(cuStreamCreate(&s, 0));
    DRV(cuMemcpyDtoHAsync(h_pinned, d_out, bytes, s));
    DRV(cuStreamSynchronize(s));

    printf("out[1] = %f (expect %f), pinned[1] = %f\n", h_out[1], (float)N, h_pinned[1]);

    DRV(cuStreamDestroy(s));
    DRV(cuMemFree(d_in));
    DRV(cuMemFree(d_out));
    DRV(cuMemFreeHost(h_pinned));
    free(h_in);
    free(h_out);
    DRV(cuModuleUnload(mod));
    DRV(cuCtxDestroy(ctx));
    return 0;
}
