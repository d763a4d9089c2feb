// case: a tone-mapping LUT factory fills cudaMallocManaged memory with a kernel and returns nullptr when the synchronize fails, dropping the managed table; on success the caller frees it
// expect: device_memory_leak=1
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

constexpr int kLutSize = 4096;
constexpr int kPixels = 1920 * 1080;

__global__ void build_reinhard_lut(float* lut, int n, float white) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float L = 16.0f * i / (n - 1);
    lut[i] = L * (1.0f + L / (white * white)) / (1.0f + L);
}

__global__ void apply_lut(const float* hdr, float* ldr, const float* lut, int n, int lut_n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int idx = min((int)(hdr[i] / 16.0f * (lut_n - 1)), lut_n - 1);
    ldr[i] = lut[idx];
}

float* make_lut(float white) {
    float* lut = nullptr;
    if (cudaMallocManaged(&lut, kLutSize * sizeof(float)) != cudaSuccess) return nullptr; // EXPECT: device_memory_leak
    build_reinhard_lut<<<(kLutSize + 255) / 256, 256>>>(lut, kLutSize, white);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "LUT build failed\n");
        return nullptr;
    }
    if (!(lut[kLutSize - 1] > 0.0f)) fprintf(stderr, "warning: degenerate LUT\n");
    return lut;
}

int main() {
    std::vector<float> hdr(kPixels), ldr(kPixels);
    for (int i = 0; i < kPixels; ++i) hdr[i] = 16.0f * (i % 1024) / 1024.0f;

    float* lut = make_lut(4.0f);
    if (!lut) return 1;

    float *d_hdr, *d_ldr;
    cudaMalloc(&d_hdr, kPixels * sizeof(float));
    cudaMalloc(&d_ldr, kPixels * sizeof(float));
    cudaMemcpy(d_hdr, hdr.data(), kPixels * sizeof(float), cudaMemcpyHostToDevice);
    apply_lut<<<(kPixels + 255) / 256, 256>>>(d_hdr, d_ldr, lut, kPixels, kLutSize);
    cudaMemcpy(ldr.data(), d_ldr, kPixels * sizeof(float), cudaMemcpyDeviceToHost);

    double mean = 0.0;
    for (float v : ldr) mean += v;
    printf("mean LDR value: %f\n", mean / kPixels);

    cudaFree(d_hdr);
    cudaFree(d_ldr);
    cudaFree(lut);
    return 0;
}
