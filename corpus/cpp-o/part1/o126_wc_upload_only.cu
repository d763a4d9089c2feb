// case: particle renderer stages vertex data in write-combined pinned memory that the host only writes (uploads), and reads the rasterized tile counts back through ordinary cudaMallocHost memory after synchronizing: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e_)); exit(1); } } while (0)

constexpr int TILE = 16;

__global__ void bin_particles(const float2* __restrict__ pos, int n, int tiles_x, int tiles_y,
                              int w, int h, unsigned int* tile_count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int px = (int)(pos[i].x * w), py = (int)(pos[i].y * h);
    if (px < 0 || py < 0 || px >= w || py >= h) return;
    atomicAdd(&tile_count[(py / TILE) * tiles_x + px / TILE], 1u);
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4 << 20, w = 2560, h = 1440;
    int tiles_x = (w + TILE - 1) / TILE, tiles_y = (h + TILE - 1) / TILE, ntiles = tiles_x * tiles_y;

    float2* h_pos;                                   // write-only from the CPU
    CUDA_CHECK(cudaHostAlloc(&h_pos, n * sizeof(float2), cudaHostAllocWriteCombined));
    unsigned int* h_counts;                          // read by the CPU: cached pinned memory
    CUDA_CHECK(cudaMallocHost(&h_counts, ntiles * sizeof(unsigned int)));

    float2* d_pos;
    unsigned int* d_counts;
    CUDA_CHECK(cudaMalloc(&d_pos, n * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&d_counts, ntiles * sizeof(unsigned int)));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    for (int frame = 0; frame < 8; ++frame) {
        float t = frame * 0.016f;
        for (int i = 0; i < n; ++i) {
            float a = 6.2831853f * i / n;
            h_pos[i] = make_float2(0.5f + 0.4f * cosf(a + t) * (i % 100) / 100.f,
                                   0.5f + 0.4f * sinf(a * 3.f + t) * (i % 100) / 100.f);
        }
        CUDA_CHECK(cudaMemcpyAsync(d_pos, h_pos, n * sizeof(float2), cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemsetAsync(d_counts, 0, ntiles * sizeof(unsigned int), s));
        bin_particles<<<(n + 255) / 256, 256, 0, s>>>(d_pos, n, tiles_x, tiles_y, w, h, d_counts);
        CUDA_CHECK(cudaMemcpyAsync(h_counts, d_counts, ntiles * sizeof(unsigned int), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        unsigned int busiest = 0;
        for (int tI = 0; tI < ntiles; ++tI) busiest = h_counts[tI] > busiest ? h_counts[tI] : busiest;
        printf("frame %d: busiest tile holds %u particles\n", frame, busiest);
    }

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_counts));
    CUDA_CHECK(cudaFree(d_pos));
    CUDA_CHECK(cudaFreeHost(h_counts));
    CUDA_CHECK(cudaFreeHost(h_pos));
    return 0;
}
