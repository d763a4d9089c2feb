// Kernels of the preprocessing pipeline: HWC uint8 -> normalized CHW float.
#pragma once
#include <cuda_runtime.h>
#include <cstdint>

__global__ void hwc_to_chw_normalize(const uint8_t* __restrict__ src, float* __restrict__ dst,
                                     int batch, int height, int width,
                                     float3 mean, float3 inv_std) {
  const int plane = height * width;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= batch * plane) return;
  const int b = idx / plane;
  const int p = idx % plane;
  const uint8_t* px = src + (static_cast<size_t>(b) * plane + p) * 3;
  float* out = dst + static_cast<size_t>(b) * 3 * plane;
  out[p] = (px[0] / 255.f - mean.x) * inv_std.x;
  out[plane + p] = (px[1] / 255.f - mean.y) * inv_std.y;
  out[2 * plane + p] = (px[2] / 255.f - mean.z) * inv_std.z;
}

__global__ void per_image_mean(const float* __restrict__ chw, float* __restrict__ means,
                               int batch, int elems_per_image) {
  const int b = blockIdx.x;
  if (b >= batch) return;
  float acc = 0.f;
  for (int i = threadIdx.x; i < elems_per_image; i += blockDim.x)
    acc += chw[static_cast<size_t>(b) * elems_per_image + i];
  atomicAdd(&means[b], acc / elems_per_image);
}
