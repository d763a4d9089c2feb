// case: tone-mapping pass that writes its histogram into mapped pinned memory (kernel uses the device alias from cudaHostGetDevicePointer) and reads a managed LUT; the host touches only host-visible memory and only after synchronizing: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <array>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kBins = 256;

__global__ void luminance_hist(const float4* __restrict__ img, int n,
                               unsigned int* __restrict__ hist_dev_alias,
                               const float* __restrict__ lut)
{
    __shared__ unsigned int local[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float4 p = img[i];
        float y = 0.2126f * p.x + 0.7152f * p.y + 0.0722f * p.z;
        int bin = min(kBins - 1, (int)(lut[min(kBins - 1, (int)(y * 255.f))] * (kBins - 1)));
        atomicAdd(&local[bin], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&hist_dev_alias[b], local[b]);
}

int main(int argc, char** argv)
{
    int w = argc > 1 ? std::atoi(argv[1]) : 3840, h = argc > 2 ? std::atoi(argv[2]) : 2160;
    int n = w * h;
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));

    unsigned int* h_hist = nullptr;
    CHECK(cudaHostAlloc(&h_hist, kBins * sizeof(unsigned int), cudaHostAllocMapped));
    for (int b = 0; b < kBins; ++b) h_hist[b] = 0;
    unsigned int* d_hist_alias = nullptr;
    CHECK(cudaHostGetDevicePointer(&d_hist_alias, h_hist, 0));

    float* lut = nullptr;                         // managed: host-visible
    CHECK(cudaMallocManaged(&lut, kBins * sizeof(float)));
    for (int b = 0; b < kBins; ++b) lut[b] = std::pow(b / 255.f, 1.f / 2.2f);

    float4* d_img;
    CHECK(cudaMalloc(&d_img, (size_t)n * sizeof(float4)));
    CHECK(cudaMemset(d_img, 0x3e, (size_t)n * sizeof(float4)));

    luminance_hist<<<264, 256>>>(d_img, n, d_hist_alias, lut);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::array<double, kBins> cdf{};
    double run = 0.0;
    for (int b = 0; b < kBins; ++b) {
        run += h_hist[b];
        cdf[b] = run / n;
    }
    int median = 0;
    while (median < kBins - 1 && cdf[median] < 0.5) ++median;
    printf("median luminance bin %d, lut[median] = %.3f\n", median, lut[median]);

    CHECK(cudaFree(d_img));
    CHECK(cudaFree(lut));
    CHECK(cudaFreeHost(h_hist));
    return 0;
}
