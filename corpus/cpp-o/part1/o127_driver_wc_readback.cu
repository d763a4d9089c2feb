// case: driver-API Monte Carlo option pricer reads its per-path payoffs back into memory from cuMemHostAlloc with CU_MEMHOSTALLOC_WRITECOMBINED and averages them on the CPU; a debug print also dereferences the CUdeviceptr of the seeds on the host.
// expect: write_combined_host_read=1, host_deref_device_ptr=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    const char* s_ = nullptr; cuGetErrorName(r_, &s_); fprintf(stderr, "%s: %s\n", #x, s_); exit(1); } } while (0)

__global__ void price_paths(const uint64_t* __restrict__ seeds, float* __restrict__ payoff, int paths,
                            int steps, float s0, float k, float r, float sigma, float T)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= paths) return;
    uint64_t x = seeds[p];
    float dt = T / steps, s = s0;
    for (int i = 0; i < steps; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        float u1 = ((x >> 40) + 1) / 16777217.f, u2 = ((x >> 16) & 0xFFFFFF) / 16777216.f;
        float z = sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
        s *= expf((r - 0.5f * sigma * sigma) * dt + sigma * sqrtf(dt) * z);
    }
    payoff[p] = fmaxf(s - k, 0.f);
}

int main(int argc, char** argv)
{
    int paths = argc > 1 ? atoi(argv[1]) : 1 << 22, steps = 252;
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    uint64_t* h_seeds;
    float* h_payoff;
    CU_CHECK(cuMemAllocHost((void**)&h_seeds, paths * sizeof(uint64_t)));
    CU_CHECK(cuMemHostAlloc((void**)&h_payoff, paths * sizeof(float), CU_MEMHOSTALLOC_WRITECOMBINED));
    for (int p = 0; p < paths; ++p) h_seeds[p] = 0x9E3779B97F4A7C15ull * (p + 1);

    CUdeviceptr d_seeds, d_payoff;
    CU_CHECK(cuMemAlloc(&d_seeds, paths * sizeof(uint64_t)));
    CU_CHECK(cuMemAlloc(&d_payoff, paths * sizeof(float)));
    CU_CHECK(cuMemcpyHtoDAsync(d_seeds, h_seeds, paths * sizeof(uint64_t), stream));
    CU_CHECK(cuStreamSynchronize(stream));
#ifndef NDEBUG
    printf("first seed on device: %llu\n", (unsigned long long)*(const uint64_t*)d_seeds);   // EXPECT: host_deref_device_ptr
#endif

    price_paths<<<(paths + 255) / 256, 256, 0, (cudaStream_t)stream>>>(
        (const uint64_t*)d_seeds, (float*)d_payoff, paths, steps, 100.f, 105.f, 0.03f, 0.2f, 1.f);
    CU_CHECK(cuMemcpyDtoHAsync(h_payoff, d_payoff, paths * sizeof(float), stream));
    CU_CHECK(cuStreamSynchronize(stream));

    double sum = 0.0, sum2 = 0.0;
    for (int p = 0; p < paths; ++p) {
        double v = h_payoff[p];                               // EXPECT: write_combined_host_read
        sum += v; sum2 += v * v;
    }
    double mean = sum / paths, se = std::sqrt((sum2 / paths - mean * mean) / paths);
    printf("call price %.4f +- %.4f\n", std::exp(-0.03) * mean, se);

    CU_CHECK(cuMemFree(d_payoff));
    CU_CHECK(cuMemFree(d_seeds));
    CU_CHECK(cuMemFreeHost(h_payoff));
    CU_CHECK(cuMemFreeHost(h_seeds));
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
