#pragma once
#include <cuda_runtime.h>
#include <cstdint>

namespace stages {

__global__ void to_luma(const uchar4* rgba, float* luma, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uchar4 p = rgba[i];
        luma[i] = (0.2126f * p.x + 0.7152f * p.y + 0.0722f * p.z) / 255.0f;
    }
}

__global__ void blur_h(const float* in, float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.f;
    for (int k = -3; k <= 3; ++k) s += in[y * w + min(max(x + k, 0), w - 1)];
    out[y * w + x] = s / 7.f;
}

__global__ void threshold(const float* in, uint8_t* mask, int n, float t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mask[i] = in[i] > t ? 255 : 0;
}

} // namespace stages
