// case: a renderer uploads a stack-allocated launch-parameter struct, a 4 KiB std::array LUT and a 1 KiB constant-memory table with async copies from pageable memory, all under the 64 KiB small-copy threshold, and reads its scalar result after synchronizing.
// expect: none
#include <cuda_runtime.h>
#include <array>
#include <cstdio>
#include <stdexcept>
#include <vector>

#define CK(call)                                                     \
    do {                                                             \
        cudaError_t st = (call);                                     \
        if (st != cudaSuccess) throw std::runtime_error(cudaGetErrorString(st)); \
    } while (0)

struct ToneMapParams {
    float exposure;
    float gamma;
    int width;
    int height;
    float curve[64];
};

__constant__ float c_weights[256];

__global__ void tonemap(const ToneMapParams* p, const float* lut, const float* hdr,
                        float* ldr, float* luminance_sum) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= p->width || y >= p->height) return;
    int idx = y * p->width + x;
    float v = hdr[idx] * p->exposure * c_weights[x & 255];
    int bucket = min(1023, max(0, (int)(v * 1023.0f)));
    float out = powf(lut[bucket], 1.0f / p->gamma);
    ldr[idx] = out;
    atomicAdd(luminance_sum, out);
}

int main() {
    const int width = 1920, height = 1080;
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));

    ToneMapParams params{};
    params.exposure = 1.4f;
    params.gamma = 2.2f;
    params.width = width;
    params.height = height;
    for (int i = 0; i < 64; ++i) params.curve[i] = i / 63.0f;

    std::array<float, 1024> lut{};
    for (size_t i = 0; i < lut.size(); ++i) lut[i] = static_cast<float>(i) / 1023.0f;

    std::vector<float> weights(256, 1.0f);

    ToneMapParams* d_params = nullptr;
    float *d_lut = nullptr, *d_hdr = nullptr, *d_ldr = nullptr, *d_sum = nullptr;
    CK(cudaMalloc(&d_params, sizeof(ToneMapParams)));
    CK(cudaMalloc(&d_lut, sizeof(lut)));
    CK(cudaMalloc(&d_hdr, sizeof(float) * width * height));
    CK(cudaMalloc(&d_ldr, sizeof(float) * width * height));
    CK(cudaMalloc(&d_sum, sizeof(float)));

    CK(cudaMemcpyAsync(d_params, &params, sizeof(params), cudaMemcpyHostToDevice, stream));
    CK(cudaMemcpyAsync(d_lut, lut.data(), sizeof(lut), cudaMemcpyHostToDevice, stream));
    CK(cudaMemcpyToSymbolAsync(c_weights, weights.data(), 256 * sizeof(float), 0,
                               cudaMemcpyHostToDevice, stream));
    CK(cudaMemsetAsync(d_hdr, 0, sizeof(float) * width * height, stream));
    CK(cudaMemsetAsync(d_sum, 0, sizeof(float), stream));

    dim3 grid((width + 255) / 256, height);
    tonemap<<<grid, 256, 0, stream>>>(d_params, d_lut, d_hdr, d_ldr, d_sum);

    float luminance = 0.0f;
    CK(cudaMemcpyAsync(&luminance, d_sum, sizeof(float), cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamSynchronize(stream));
    std::printf("mean luminance %f\n", luminance / (width * height));

    cudaFree(d_params);
    cudaFree(d_lut);
    cudaFree(d_hdr);
    cudaFree(d_ldr);
    cudaFree(d_sum);
    CK(cudaStreamDestroy(stream));
    return 0;
}
