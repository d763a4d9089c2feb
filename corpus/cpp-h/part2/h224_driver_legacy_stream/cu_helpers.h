#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    const char* msg = nullptr; cuGetErrorString(r_, &msg); \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, msg ? msg : "?"); std::exit(1); } } while (0)

struct DriverContext {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    DriverContext() {
        CU_CHECK(cuInit(0));
        CU_CHECK(cuDeviceGet(&dev, 0));
        CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
        CU_CHECK(cuCtxSetCurrent(ctx));
    }
    ~DriverContext() { cuDevicePrimaryCtxRelease(dev); }
};
