// case: An HDR tone mapper builds a gamma lookup table on the host and uploads it into the file-scope pointer d_tone_lut, which nothing ever allocates (unallocated_pointer at the unchecked upload, whose cudaErrorInvalidValue only surfaces at the launch's cudaGetLastError); the kernel tests the table for null, so the launch itself is not a finding.
// expect: unallocated_pointer=1
#include <cuda_runtime.h>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t err = (x);                                                     \
        if (err != cudaSuccess) {                                                  \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(err));                                 \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kLutSize = 4096;

static float* d_tone_lut;  // device copy of the tone curve

static void init_tone_curve(float gamma, float exposure) {
    std::array<float, kLutSize> lut;
    for (int i = 0; i < kLutSize; ++i) {
        float x = exposure * float(i) / (kLutSize - 1);
        float reinhard = x / (1.0f + x);
        lut[i] = std::pow(reinhard, 1.0f / gamma);
    }
    cudaMemcpy(d_tone_lut, lut.data(), sizeof(lut), cudaMemcpyHostToDevice);  // EXPECT: unallocated_pointer
}

__global__ void tonemap(const float3* __restrict__ hdr, uchar4* __restrict__ ldr, int n,
                        const float* __restrict__ lut, float max_lum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 c = hdr[i];
    float rgb[3] = {c.x, c.y, c.z};
    unsigned char out[3];
    for (int k = 0; k < 3; ++k) {
        float v = fminf(fmaxf(rgb[k] / max_lum, 0.0f), 1.0f);
        if (lut) v = lut[int(v * (kLutSize - 1))];
        out[k] = (unsigned char)(v * 255.0f + 0.5f);
    }
    ldr[i] = make_uchar4(out[0], out[1], out[2], 255);
}

int main() {
    const int w = 3840, h = 2160, n = w * h;
    std::vector<float3> hdr(n);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float l = 0.1f + 20.0f * float(x) / w * float(y) / h;
            hdr[size_t(y) * w + x] = make_float3(l, 0.8f * l, 0.6f * l);
        }

    init_tone_curve(2.2f, 4.0f);

    float3* d_hdr = nullptr;
    uchar4* d_ldr = nullptr;
    CUDA_CHECK(cudaMalloc(&d_hdr, n * sizeof(float3)));
    CUDA_CHECK(cudaMalloc(&d_ldr, n * sizeof(uchar4)));
    CUDA_CHECK(cudaMemcpy(d_hdr, hdr.data(), n * sizeof(float3), cudaMemcpyHostToDevice));
    tonemap<<<(n + 255) / 256, 256>>>(d_hdr, d_ldr, n, d_tone_lut, 20.0f);
    CUDA_CHECK(cudaGetLastError());

    std::vector<uchar4> ldr(n);
    CUDA_CHECK(cudaMemcpy(ldr.data(), d_ldr, n * sizeof(uchar4), cudaMemcpyDeviceToHost));
    std::printf("corner pixels: (%d,%d,%d) (%d,%d,%d)\n", ldr[0].x, ldr[0].y, ldr[0].z,
                ldr[n - 1].x, ldr[n - 1].y, ldr[n - 1].z);

    CUDA_CHECK(cudaFree(d_ldr));
    CUDA_CHECK(cudaFree(d_hdr));
    CUDA_CHECK(cudaFree(d_tone_lut));
    return 0;
}
