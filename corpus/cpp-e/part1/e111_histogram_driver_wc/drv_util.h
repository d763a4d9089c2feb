#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?"); std::exit(1); } } while (0)

// Host buffers for DMA. Write-combined avoids snooping on the PCIe path.
static const unsigned int kStagingFlags = CU_MEMHOSTALLOC_WRITECOMBINED | CU_MEMHOSTALLOC_PORTABLE;

struct DriverContext {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    CUstream stream = nullptr;
    DriverContext() {
        CU_CHECK(cuInit(0));
        CU_CHECK(cuDeviceGet(&dev, 0));
        CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
        CU_CHECK(cuCtxSetCurrent(ctx));
        CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    }
    ~DriverContext() {
        cuStreamDestroy(stream);
        cuDevicePrimaryCtxRelease(dev);
    }
};
