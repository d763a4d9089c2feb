// case: gamma correction whose lookup table is a std::array of 256 floats and a 256-float device buffer, but the upload uses the 10-bit level count (1024 floats)
// expect: copy_out_of_bounds=1
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

namespace {

constexpr int kLevels8 = 256;
constexpr int kLevels10 = 1024;
constexpr int kPixels = 1 << 20;

void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(EXIT_FAILURE);
    }
}

__global__ void apply_lut(const uint8_t *in, float *out, const float *lut, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lut[in[i]];
}

std::array<float, kLevels8> build_lut(float gamma)
{
    std::array<float, kLevels8> lut{};
    for (int v = 0; v < kLevels8; ++v)
        lut[v] = std::pow(v / float(kLevels8 - 1), 1.0f / gamma);
    return lut;
}

} // namespace

int main()
{
    std::array<float, kLevels8> lut = build_lut(2.2f);
    std::vector<uint8_t> pixels(kPixels);
    for (int i = 0; i < kPixels; ++i) pixels[i] = uint8_t(i % 251);
    std::vector<float> result(kPixels);

    uint8_t *d_in;
    float *d_out, *d_lut;
    check(cudaMalloc(&d_in, kPixels), "malloc in");
    check(cudaMalloc(&d_out, kPixels * sizeof(float)), "malloc out");
    check(cudaMalloc(&d_lut, kLevels8 * sizeof(float)), "malloc lut");

    check(cudaMemcpy(d_in, pixels.data(), kPixels, cudaMemcpyHostToDevice), "upload pixels");
    check(cudaMemcpy(d_lut, lut.data(), kLevels10 * sizeof(float), cudaMemcpyHostToDevice), "upload lut"); // EXPECT: copy_out_of_bounds

    apply_lut<<<(kPixels + 255) / 256, 256>>>(d_in, d_out, d_lut, kPixels);
    check(cudaGetLastError(), "launch");
    check(cudaMemcpy(result.data(), d_out, kPixels * sizeof(float), cudaMemcpyDeviceToHost), "download");

    std::printf("lut(128) -> %f\n", result[128]);

    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_lut);
    return 0;
}
