// case: an audio resampler maps one VMM allocation twice (base and base+size) as a mirrored ring and its kernel writes through one view and reads through the other, with fence.proxy.alias between them and a stream sync before unmapping.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define DRV(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s = nullptr; \
    cuGetErrorName(r, &s); fprintf(stderr, "%s: %s\n", #x, s); return 1; } } while (0)

__global__ void fir_stage(float* ring_hi, const float* ring_lo, const float* in, float* out,
                          size_t ring_len, size_t head, int n, const float* taps, int ntaps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    size_t slot = (head + i) % ring_len;
    ring_hi[slot] = in[i];
    asm volatile("fence.proxy.alias;" ::: "memory");
    float acc = taps[0] * ring_lo[slot];               // own sample, through the other view
    for (int t = 1; t < ntaps; ++t) {
        if (t <= i) acc += taps[t] * in[i - t];          // written in this launch: take it from `in`
        else        acc += taps[t] * ring_lo[(slot + ring_len - t) % ring_len];   // earlier launches
    }
    out[i] = acc;
}

int main() {
    DRV(cuInit(0));
    CUdevice dev; DRV(cuDeviceGet(&dev, 0));
    CUcontext ctx; DRV(cuDevicePrimaryCtxRetain(&ctx, dev)); DRV(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    DRV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    const size_t size = gran;

    CUdeviceptr base = 0;
    CUmemGenericAllocationHandle h;
    DRV(cuMemAddressReserve(&base, 2 * size, 0, 0, 0));
    DRV(cuMemCreate(&h, size, &prop, 0));
    DRV(cuMemMap(base, size, 0, h, 0));
    DRV(cuMemMap(base + size, size, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV(cuMemSetAccess(base, 2 * size, &acc, 1));

    const int block = 48000 / 10;   // 100 ms at 48 kHz
    const int ntaps = 64;
    float *d_in, *d_out, *d_taps;
    cudaMalloc(&d_in, block * sizeof(float));
    cudaMalloc(&d_out, block * sizeof(float));
    cudaMalloc(&d_taps, ntaps * sizeof(float));
    std::vector<float> taps(ntaps, 1.f / ntaps);
    cudaMemcpy(d_taps, taps.data(), ntaps * sizeof(float), cudaMemcpyHostToDevice);

    cudaStream_t s; cudaStreamCreate(&s);
    const size_t ring_len = size / sizeof(float);
    size_t head = 0;
    for (int chunk = 0; chunk < 50; ++chunk) {
        cudaMemsetAsync(d_in, 0, block * sizeof(float), s);
        fir_stage<<<(block + 255) / 256, 256, 0, s>>>(
            (float*)(base + size), (const float*)base, d_in, d_out, ring_len, head, block,
            d_taps, ntaps);
        head = (head + block) % ring_len;
    }
    cudaStreamSynchronize(s);

    DRV(cuMemUnmap(base + size, size));
    DRV(cuMemUnmap(base, size));
    DRV(cuMemRelease(h));
    DRV(cuMemAddressFree(base, 2 * size));
    cudaFree(d_taps); cudaFree(d_out); cudaFree(d_in);
    cudaStreamDestroy(s);
    printf("resampled 50 blocks\n");
    return 0;
}
