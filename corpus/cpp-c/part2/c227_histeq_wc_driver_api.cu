// case: a histogram-equalization stage written against the driver API reads its 256-bin histogram back into cuMemHostAlloc memory allocated with CU_MEMHOSTALLOC_WRITECOMBINED and builds the CDF from it on the host
// expect: write_combined_host_read=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CU_SAFE(call)                                                                     \
    do {                                                                                  \
        CUresult err_ = (call);                                                           \
        if (err_ != CUDA_SUCCESS) {                                                       \
            const char* str_ = nullptr;                                                   \
            cuGetErrorName(err_, &str_);                                                  \
            std::fprintf(stderr, "%s returned %s\n", #call, str_ ? str_ : "?");           \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

__global__ void histogram256(const uint8_t* img, size_t n, unsigned* hist) {
    __shared__ unsigned local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[img[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

__global__ void remap(uint8_t* img, size_t n, const uint8_t* lut) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) img[i] = lut[img[i]];
}

int main() {
    CU_SAFE(cuInit(0));
    CUdevice dev;
    CU_SAFE(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_SAFE(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_SAFE(cuCtxSetCurrent(ctx));

    const size_t w = 6000, h = 4000, n = w * h;
    void* h_img = nullptr;
    unsigned* h_hist = nullptr;
    uint8_t* h_lut = nullptr;
    CU_SAFE(cuMemAllocHost(&h_img, n));
    CU_SAFE(cuMemHostAlloc(reinterpret_cast<void**>(&h_hist), 256 * sizeof(unsigned), CU_MEMHOSTALLOC_WRITECOMBINED));
    CU_SAFE(cuMemAllocHost(reinterpret_cast<void**>(&h_lut), 256));
    for (size_t i = 0; i < n; ++i) static_cast<uint8_t*>(h_img)[i] = (uint8_t)(64 + (i % w) * 64 / w);

    CUdeviceptr d_img, d_hist, d_lut;
    CU_SAFE(cuMemAlloc(&d_img, n));
    CU_SAFE(cuMemAlloc(&d_hist, 256 * sizeof(unsigned)));
    CU_SAFE(cuMemAlloc(&d_lut, 256));

    CUstream stream;
    CU_SAFE(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CU_SAFE(cuMemcpyHtoDAsync(d_img, h_img, n, stream));
    CU_SAFE(cuMemsetD32Async(d_hist, 0, 256, stream));
    histogram256<<<512, 256, 0, stream>>>(reinterpret_cast<const uint8_t*>(d_img), n, reinterpret_cast<unsigned*>(d_hist));
    CU_SAFE(cuMemcpyDtoHAsync(h_hist, d_hist, 256 * sizeof(unsigned), stream));
    CU_SAFE(cuStreamSynchronize(stream));

    // cumulative histogram -> equalization LUT
    unsigned long long cdf = 0, cdf_min = 0;
    for (int b = 0; b < 256; ++b) {
        cdf += h_hist[b]; // EXPECT: write_combined_host_read
        if (!cdf_min && cdf) cdf_min = cdf;
        h_lut[b] = (uint8_t)((cdf - cdf_min) * 255ull / (n - cdf_min ? n - cdf_min : 1));
    }

    CU_SAFE(cuMemcpyHtoDAsync(d_lut, h_lut, 256, stream));
    remap<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(reinterpret_cast<uint8_t*>(d_img), n, reinterpret_cast<const uint8_t*>(d_lut));
    CU_SAFE(cuMemcpyDtoHAsync(h_img, d_img, n, stream));
    CU_SAFE(cuStreamSynchronize(stream));
    std::printf("equalized %zux%zu, first pixel %u\n", w, h, static_cast<uint8_t*>(h_img)[0]);

    CU_SAFE(cuStreamDestroy(stream));
    CU_SAFE(cuMemFree(d_lut));
    CU_SAFE(cuMemFree(d_hist));
    CU_SAFE(cuMemFree(d_img));
    CU_SAFE(cuMemFreeHost(h_lut));
    CU_SAFE(cuMemFreeHost(h_hist));
    CU_SAFE(cuMemFreeHost(h_img));
    CU_SAFE(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
