// case: driver-API program that scales a buffer with a kernel from a PTX file, then snapshots it into a second CUdeviceptr declared 0 and never cuMemAlloc'd: the device-to-device copy and the readback use null
// expect: unallocated_pointer=2
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define CU(call)                                                            \
    do {                                                                    \
        CUresult r_ = (call);                                               \
        if (r_ != CUDA_SUCCESS) {                                           \
            const char *s_ = nullptr;                                       \
            cuGetErrorString(r_, &s_);                                      \
            std::fprintf(stderr, "%s: %s\n", #call, s_ ? s_ : "?");         \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

#define N 65536

int main()
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;

    CU(cuInit(0));
    CU(cuDeviceGet(&dev, 0));
    CU(cuCtxCreate(&ctx, 0, dev));
    CU(cuModuleLoad(&mod, "scale.ptx"));
    CU(cuModuleGetFunction(&fn, mod, "scale"));

    static float h_x[N], h_snapshot[N];
    for (int i = 0; i < N; ++i) h_x[i] = float(i);

    CUdeviceptr d_x = 0;
    CUdeviceptr d_snapshot = 0;
    CU(cuMemAlloc(&d_x, N * sizeof(float)));
    CU(cuMemcpyHtoD(d_x, h_x, N * sizeof(float)));

    float a = 2.5f;
    int n = N;
    void *args[] = {&a, &d_x, &n};
    CU(cuLaunchKernel(fn, N / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    CU(cuCtxSynchronize());

    CU(cuMemcpyDtoD(d_snapshot, d_x, N * sizeof(float))); // EXPECT: unallocated_pointer
    CU(cuMemcpyDtoH(h_snapshot, d_snapshot, N * sizeof(float))); // EXPECT: unallocated_pointer
    std::printf("snapshot[10] = %f\n", h_snapshot[10]);

    CU(cuMemFree(d_x));
    CU(cuModuleUnload(mod));
    CU(cuCtxDestroy(ctx));
    return 0;
}
