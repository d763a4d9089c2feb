// case: driver-API image threshold: cuMemAllocHost pinned buffers, async copies and a launch on one stream, cuStreamSynchronize before the host reads, and every allocation released by its matching cuMemFree/cuMemFreeHost: correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define DRV_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    const char* s_ = nullptr; cuGetErrorString(r_, &s_); fprintf(stderr, "%s failed: %s\n", #x, s_); exit(1); } } while (0)

__global__ void otsu_threshold(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int n, uint8_t t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] > t ? 255 : 0;
}

int main(int argc, char** argv)
{
    int w = argc > 1 ? atoi(argv[1]) : 4096, h = argc > 2 ? atoi(argv[2]) : 4096;
    size_t n = (size_t)w * h;
    DRV_CHECK(cuInit(0));
    CUdevice dev;
    DRV_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    DRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV_CHECK(cuCtxSetCurrent(ctx));
    CUstream s;
    DRV_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    uint8_t *h_in, *h_out;
    DRV_CHECK(cuMemAllocHost((void**)&h_in, n));
    DRV_CHECK(cuMemHostAlloc((void**)&h_out, n, 0));        // default flags: cached
    for (size_t i = 0; i < n; ++i) h_in[i] = (uint8_t)((i % w) * 255 / w);

    CUdeviceptr d_in, d_out;
    DRV_CHECK(cuMemAlloc(&d_in, n));
    DRV_CHECK(cuMemAlloc(&d_out, n));
    DRV_CHECK(cuMemcpyHtoDAsync(d_in, h_in, n, s));
    otsu_threshold<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)s>>>(
        (const uint8_t*)d_in, (uint8_t*)d_out, (int)n, 128);
    DRV_CHECK(cuMemcpyDtoHAsync(h_out, d_out, n, s));
    DRV_CHECK(cuStreamSynchronize(s));

    size_t white = 0;
    for (size_t i = 0; i < n; ++i) white += h_out[i] == 255;
    printf("%.2f%% foreground\n", 100.0 * white / n);

    DRV_CHECK(cuMemFree(d_out));
    DRV_CHECK(cuMemFree(d_in));
    DRV_CHECK(cuMemFreeHost(h_out));
    DRV_CHECK(cuMemFreeHost(h_in));
    DRV_CHECK(cuStreamDestroy(s));
    DRV_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
