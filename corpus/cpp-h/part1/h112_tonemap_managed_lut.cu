// case: HDR tone mapping fills a managed LUT on the host before any kernel is launched, and while the tone-map kernel runs the host only writes an ordinary malloc'd log buffer; the managed histogram is read after cudaDeviceSynchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kLut = 4096;
constexpr int kBins = 256;

__global__ void tonemap(const float3* hdr, uchar4* ldr, const float* lut, unsigned* hist, int n, float exposure)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 c = hdr[i];
    float lum = 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z;
    int idx = min(kLut - 1, (int)(lum * exposure * (kLut - 1)));
    float scale = lut[idx] / fmaxf(lum, 1e-6f);
    auto q = [](float v) { return (unsigned char)fminf(255.f, v * 255.f); };
    ldr[i] = make_uchar4(q(c.x * scale), q(c.y * scale), q(c.z * scale), 255);
    atomicAdd(&hist[(int)(lut[idx] * (kBins - 1))], 1u);
}

int main()
{
    const int w = 4096, h = 2048, n = w * h;
    float* lut; unsigned* hist;
    CHECK(cudaMallocManaged(&lut, kLut * sizeof(float)));
    CHECK(cudaMallocManaged(&hist, kBins * sizeof(unsigned)));
    for (int i = 0; i < kLut; ++i) { float x = 4.f * i / (kLut - 1); lut[i] = x * (1.f + x / 16.f) / (1.f + x); }
    std::memset(hist, 0, kBins * sizeof(unsigned));

    float3* d_hdr; uchar4* d_ldr;
    CHECK(cudaMalloc(&d_hdr, n * sizeof(float3)));
    CHECK(cudaMalloc(&d_ldr, n * sizeof(uchar4)));
    CHECK(cudaMemset(d_hdr, 0x3f, n * sizeof(float3)));

    char* log = (char*)std::malloc(1 << 16);
    tonemap<<<(n + 255) / 256, 256>>>(d_hdr, d_ldr, lut, hist, n, 0.18f);
    std::snprintf(log, 1 << 16, "tonemap %dx%d exposure %.2f launched\n", w, h, 0.18f);   // host-only memory
    CHECK(cudaDeviceSynchronize());

    unsigned long long total = 0;
    int mode = 0;
    for (int b = 0; b < kBins; ++b) { total += hist[b]; if (hist[b] > hist[mode]) mode = b; }
    std::printf("%s%llu pixels, histogram mode at bin %d\n", log, total, mode);

    std::free(log);
    cudaFree(d_ldr); cudaFree(d_hdr);
    cudaFree(hist); cudaFree(lut);
    return 0;
}
