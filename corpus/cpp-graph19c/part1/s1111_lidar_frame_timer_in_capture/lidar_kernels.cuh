#pragma once
#include <cuda_runtime.h>

constexpr int kRangeBins = 64;
constexpr float kMaxRange = 120.0f;  // metres

// Row-major 3x4 rigid transform (sensor -> vehicle), passed by value.
struct Extrinsics {
    float m[12];
};

// Transform every return into the vehicle frame; keep those between min and max range
// that are above the road (z > ground).
__global__ void transform_and_gate(const float4* __restrict__ raw, Extrinsics T, int n,
                                   float min_range, float ground_z,
                                   float4* __restrict__ vehicle, int* __restrict__ keep) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const float4 p = raw[k];
    float4 q;
    q.x = T.m[0] * p.x + T.m[1] * p.y + T.m[2] * p.z + T.m[3];
    q.y = T.m[4] * p.x + T.m[5] * p.y + T.m[6] * p.z + T.m[7];
    q.z = T.m[8] * p.x + T.m[9] * p.y + T.m[10] * p.z + T.m[11];
    q.w = p.w;  // intensity
    vehicle[k] = q;
    const float r = sqrtf(q.x * q.x + q.y * q.y);
    keep[k] = (r >= min_range && r < kMaxRange && q.z > ground_z) ? 1 : 0;
}

// Histogram of kept returns over range, for the obstacle-density map.
__global__ void range_histogram(const float4* __restrict__ vehicle, const int* __restrict__ keep,
                                int n, unsigned int* __restrict__ hist) {
    __shared__ unsigned int local[kRangeBins];
    for (int b = threadIdx.x; b < kRangeBins; b += blockDim.x) local[b] = 0u;
    __syncthreads();
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n && keep[k] != 0) {
        const float4 q = vehicle[k];
        int bin = static_cast<int>(sqrtf(q.x * q.x + q.y * q.y) / kMaxRange * kRangeBins);
        bin = bin < kRangeBins ? bin : kRangeBins - 1;
        atomicAdd(&local[bin], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < kRangeBins; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}
