#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                      \
    do {                                                                    \
        CUresult res_ = (call);                                             \
        if (res_ != CUDA_SUCCESS) {                                         \
            const char* name_ = nullptr;                                    \
            cuGetErrorName(res_, &name_);                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, name_); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

struct DriverContext {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    explicit DriverContext(int ordinal) {
        CU_CHECK(cuInit(0));
        CU_CHECK(cuDeviceGet(&dev, ordinal));
        CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
        CU_CHECK(cuCtxSetCurrent(ctx));
    }
    ~DriverContext() { cuDevicePrimaryCtxRelease(dev); }
};

// Pinned host staging: write-combined for fast PCIe transfers.
inline float* alloc_host_wc(size_t count) {
    void* p = nullptr;
    CU_CHECK(cuMemHostAlloc(&p, count * sizeof(float), CU_MEMHOSTALLOC_WRITECOMBINED));
    return static_cast<float*>(p);
}

inline void free_host(float* p) { cuMemFreeHost(p); }
