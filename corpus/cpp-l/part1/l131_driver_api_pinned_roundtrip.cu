// case: a driver-API preprocessing step uploads from portable pinned memory (cuMemHostAlloc without the write-combined flag), runs a kernel, downloads into cuMemAllocHost memory, waits on an event recorded after the download and only then reads the results; frees match their allocators, so the code is correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define DRV(call)                                                                \
    do {                                                                         \
        CUresult st_ = (call);                                                   \
        if (st_ != CUDA_SUCCESS) {                                               \
            const char* name_ = nullptr;                                         \
            cuGetErrorName(st_, &name_);                                         \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, name_);            \
            return EXIT_FAILURE;                                                 \
        }                                                                        \
    } while (0)

__global__ void to_grayscale(const uchar4* rgba, uint8_t* gray, int npx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < npx) {
        uchar4 p = rgba[i];
        gray[i] = uint8_t(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
    }
}

int main() {
    DRV(cuInit(0));
    CUdevice dev;
    DRV(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));

    const int width = 3840, height = 2160, npx = width * height;
    const size_t rgba_bytes = size_t(npx) * sizeof(uchar4);
    const size_t gray_bytes = size_t(npx);

    uchar4* h_rgba = nullptr;
    uint8_t* h_gray = nullptr;
    DRV(cuMemHostAlloc(reinterpret_cast<void**>(&h_rgba), rgba_bytes, CU_MEMHOSTALLOC_PORTABLE));
    DRV(cuMemAllocHost(reinterpret_cast<void**>(&h_gray), gray_bytes));
    for (int i = 0; i < npx; ++i)
        h_rgba[i] = make_uchar4(uint8_t(i), uint8_t(i >> 8), uint8_t(i >> 16), 255);

    CUdeviceptr d_rgba = 0, d_gray = 0;
    DRV(cuMemAlloc(&d_rgba, rgba_bytes));
    DRV(cuMemAlloc(&d_gray, gray_bytes));

    CUstream stream;
    DRV(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CUevent done;
    DRV(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));

    DRV(cuMemcpyHtoDAsync(d_rgba, h_rgba, rgba_bytes, stream));
    to_grayscale<<<(npx + 255) / 256, 256, 0, stream>>>(reinterpret_cast<const uchar4*>(d_rgba),
                                                       reinterpret_cast<uint8_t*>(d_gray), npx);
    DRV(cuMemcpyDtoHAsync(h_gray, d_gray, gray_bytes, stream));
    DRV(cuEventRecord(done, stream));
    DRV(cuEventSynchronize(done));

    unsigned long long luma = 0;
    for (int i = 0; i < npx; ++i) luma += h_gray[i];
    printf("mean luma %.2f\n", double(luma) / npx);

    DRV(cuEventDestroy(done));
    DRV(cuStreamDestroy(stream));
    DRV(cuMemFree(d_rgba));
    DRV(cuMemFree(d_gray));
    DRV(cuMemFreeHost(h_rgba));
    DRV(cuMemFreeHost(h_gray));
    DRV(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
