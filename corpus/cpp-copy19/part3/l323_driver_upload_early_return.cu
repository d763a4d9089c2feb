// case: a driver-API helper allocates a lookup table with cuMemAlloc and returns the CUresult of a failed cuMemcpyHtoD without freeing it; on success it hands the table out through an out-parameter
// expect: device_memory_leak=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>

#define LUT_SIZE 65536

static CUresult upload_gamma_lut(float gamma, CUdeviceptr* out) {
    std::vector<float> lut(LUT_SIZE);
    for (int i = 0; i < LUT_SIZE; ++i)
        lut[i] = powf(i / (float)(LUT_SIZE - 1), 1.0f / gamma);

    CUdeviceptr d_lut = 0;
    CUresult rc = cuMemAlloc(&d_lut, LUT_SIZE * sizeof(float)); // EXPECT: device_memory_leak
    if (rc != CUDA_SUCCESS) return rc;

    rc = cuMemcpyHtoD(d_lut, lut.data(), LUT_SIZE * sizeof(float));
    if (rc != CUDA_SUCCESS) return rc;

    *out = d_lut;
    return CUDA_SUCCESS;
}

static int report(CUresult rc, const char* what) {
    if (rc == CUDA_SUCCESS) return 0;
    const char* name = "unknown";
    cuGetErrorName(rc, &name);
    fprintf(stderr, "%s failed: %s\n", what, name);
    return 1;
}

int main(int argc, char** argv) {
    float gamma = argc > 1 ? (float)atof(argv[1]) : 2.2f;
    if (report(cuInit(0), "cuInit")) return 1;
    CUdevice dev;
    if (report(cuDeviceGet(&dev, 0), "cuDeviceGet")) return 1;
    CUcontext ctx;
    if (report(cuDevicePrimaryCtxRetain(&ctx, dev), "retain")) return 1;
    if (report(cuCtxSetCurrent(ctx), "set current")) return 1;

    CUdeviceptr d_lut = 0;
    if (report(upload_gamma_lut(gamma, &d_lut), "upload_gamma_lut")) {
        cuDevicePrimaryCtxRelease(dev);
        return 1;
    }

    std::vector<float> probe(16);
    cuMemcpyDtoH(probe.data(), d_lut + (LUT_SIZE / 2) * sizeof(float), probe.size() * sizeof(float));
    printf("lut[%d] = %f\n", LUT_SIZE / 2, probe[0]);

    cuMemFree(d_lut);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
