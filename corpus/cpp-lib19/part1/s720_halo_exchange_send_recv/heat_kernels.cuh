#pragma once
// 2-D heat equation on a strip decomposition: each rank owns `rows` interior rows of width
// `width` (row-major, no ghost rows in the field itself); the rows above and below come
// from the neighbours through separate halo buffers.
#include <cuda_runtime.h>

__global__ void pack_edges(const float* __restrict__ u, float* __restrict__ top_out,
                           float* __restrict__ bottom_out, int rows, int width) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    top_out[x] = u[x];
    bottom_out[x] = u[static_cast<size_t>(rows - 1) * width + x];
}

__global__ void heat_step(const float* __restrict__ u, const float* __restrict__ halo_top,
                          const float* __restrict__ halo_bottom, float* __restrict__ u_next,
                          int rows, int width, float alpha) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= width || y >= rows) return;
    const size_t i = static_cast<size_t>(y) * width + x;
    const float c = u[i];
    const float n = (y == 0) ? halo_top[x] : u[i - width];
    const float s = (y == rows - 1) ? halo_bottom[x] : u[i + width];
    const float w = (x == 0) ? c : u[i - 1];
    const float e = (x == width - 1) ? c : u[i + 1];
    u_next[i] = c + alpha * (n + s + w + e - 4.0f * c);
}

__global__ void init_field(float* u, int rows, int width, int row_offset) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= width || y >= rows) return;
    const int gy = row_offset + y;
    u[static_cast<size_t>(y) * width + x] = ((gy / 64 + x / 64) % 2 == 0) ? 1.0f : 0.0f;
}
