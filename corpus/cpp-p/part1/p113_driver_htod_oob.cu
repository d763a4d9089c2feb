// case: driver-API FIR pipeline (cuMemAlloc, cuMemHostAlloc, cuMemcpyHtoDAsync, cuLaunchKernel from a cubin); the upload's byte count uses sizeof(double) for a float buffer of N_SAMPLES elements, twice the size of both the pinned source and the device destination.
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_ ? s_ : "?"); exit(1); } } while (0)

#define N_SAMPLES (1 << 20)

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmodule mod;
    CU_CHECK(cuModuleLoad(&mod, "fir.cubin"));
    CUfunction fir;
    CU_CHECK(cuModuleGetFunction(&fir, mod, "fir_filter"));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    float *h_samples, *h_filtered;
    CU_CHECK(cuMemHostAlloc((void**)&h_samples, N_SAMPLES * sizeof(float), 0));
    CU_CHECK(cuMemHostAlloc((void**)&h_filtered, N_SAMPLES * sizeof(float), 0));
    CUdeviceptr d_samples, d_filtered;
    CU_CHECK(cuMemAlloc(&d_samples, N_SAMPLES * sizeof(float)));
    CU_CHECK(cuMemAlloc(&d_filtered, N_SAMPLES * sizeof(float)));

    for (int i = 0; i < N_SAMPLES; ++i) h_samples[i] = (float)((i % 64) - 32) / 32.0f;

    CU_CHECK(cuMemcpyHtoDAsync(d_samples, h_samples, N_SAMPLES * sizeof(double), stream));  // EXPECT: copy_out_of_bounds
    int n = N_SAMPLES;
    void* args[] = {&d_samples, &d_filtered, &n};
    CU_CHECK(cuLaunchKernel(fir, (N_SAMPLES + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
    CU_CHECK(cuMemcpyDtoHAsync(h_filtered, d_filtered, N_SAMPLES * sizeof(float), stream));
    CU_CHECK(cuStreamSynchronize(stream));
    printf("filtered[100] = %f\n", h_filtered[100]);

    CU_CHECK(cuMemFree(d_filtered));
    CU_CHECK(cuMemFree(d_samples));
    CU_CHECK(cuMemFreeHost(h_filtered));
    CU_CHECK(cuMemFreeHost(h_samples));
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuModuleUnload(mod));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
