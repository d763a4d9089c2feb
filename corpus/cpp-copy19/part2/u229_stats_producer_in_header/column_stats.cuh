#pragma once
#include <cuda_runtime.h>

// Per-column mean and standard deviation of a row-major table.
__global__ void column_stats(const float* table, int rows, int cols, float2* stats)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float mean = 0.f, m2 = 0.f;
    for (int r = 0; r < rows; ++r) {
        float v = table[r * cols + c];
        float delta = v - mean;
        mean += delta / (r + 1);
        m2 += delta * (v - mean);
    }
    stats[c] = make_float2(mean, sqrtf(m2 / (rows - 1)));
}

inline void launch_column_stats(const float* d_table, int rows, int cols, float2* d_stats, cudaStream_t s)
{
    column_stats<<<(cols + 127) / 128, 128, 0, s>>>(d_table, rows, cols, d_stats);
}
