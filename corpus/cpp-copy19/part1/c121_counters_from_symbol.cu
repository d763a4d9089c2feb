// case: ray-marching statistics kept in a __device__ array of 4 counters, read back with cudaMemcpyFromSymbol sized by an 8-entry host array, so the copy reads past the symbol
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

enum Stat { STAT_HIT = 0, STAT_MISS, STAT_STEPS, STAT_NAN, STAT_COUNT };
enum { REPORT_SLOTS = 8 };

constexpr int W = 800;
constexpr int H = 600;

__device__ unsigned int d_stats[STAT_COUNT];

__device__ float sdf_sphere(float x, float y, float z) { return sqrtf(x * x + y * y + z * z) - 1.0f; }

__global__ void march(float *depth)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= W || py >= H) return;
    float dx = (px - W / 2) / float(H), dy = (py - H / 2) / float(H), dz = 1.0f;
    float inv = rsqrtf(dx * dx + dy * dy + dz * dz);
    dx *= inv; dy *= inv; dz *= inv;
    float t = 0.0f;
    int steps = 0;
    bool hit = false;
    for (; steps < 64; ++steps) {
        float d = sdf_sphere(dx * t, dy * t, dz * t - 3.0f);
        if (d < 1e-3f) { hit = true; break; }
        t += d;
    }
    atomicAdd(&d_stats[hit ? STAT_HIT : STAT_MISS], 1u);
    atomicAdd(&d_stats[STAT_STEPS], (unsigned)steps);
    if (isnan(t)) atomicAdd(&d_stats[STAT_NAN], 1u);
    depth[py * W + px] = hit ? t : -1.0f;
}

int main()
{
    unsigned int zero[STAT_COUNT] = {0, 0, 0, 0};
    cudaMemcpyToSymbol(d_stats, zero, sizeof(zero));

    float *d_depth;
    float *h_depth = (float *)std::malloc(W * H * sizeof(float));
    cudaMalloc(&d_depth, W * H * sizeof(float));

    dim3 block(16, 16), grid((W + 15) / 16, (H + 15) / 16);
    march<<<grid, block>>>(d_depth);
    cudaMemcpy(h_depth, d_depth, W * H * sizeof(float), cudaMemcpyDeviceToHost);

    unsigned int report[REPORT_SLOTS] = {0};
    cudaMemcpyFromSymbol(report, d_stats, sizeof(report)); // EXPECT: copy_out_of_bounds

    std::printf("hits %u misses %u avg steps %.2f nan %u center depth %.3f\n",
                report[STAT_HIT], report[STAT_MISS],
                double(report[STAT_STEPS]) / (W * H), report[STAT_NAN], h_depth[(H / 2) * W + W / 2]);

    cudaFree(d_depth);
    std::free(h_depth);
    return 0;
}
