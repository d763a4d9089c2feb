// case: A satellite-image normalizer cudaMallocs a scratch tile inside its per-tile loop and frees only the last one after the loop, losing one allocation per tile (device_memory_leak at the allocation); its NaN guard also tests the cudaMalloc'd statistics buffer on the host (host_deref_device_ptr).
// expect: device_memory_leak=1, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kTile = 1024;
constexpr size_t kTilePix = size_t(kTile) * kTile;

__global__ void tile_stats(const unsigned short* __restrict__ raw, size_t n, float* stats) {
    __shared__ float s_sum[256], s_sq[256];
    float a = 0.0f, b = 0.0f;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        float v = raw[i];
        a += v;
        b += v * v;
    }
    s_sum[threadIdx.x] = a;
    s_sq[threadIdx.x] = b;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) { s_sum[threadIdx.x] += s_sum[threadIdx.x + s]; s_sq[threadIdx.x] += s_sq[threadIdx.x + s]; }
        __syncthreads();
    }
    if (threadIdx.x == 0) { atomicAdd(&stats[0], s_sum[0]); atomicAdd(&stats[1], s_sq[0]); }
}

__global__ void normalize(const unsigned short* __restrict__ raw, float* __restrict__ out, size_t n,
                          const float* __restrict__ stats) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    float mean = stats[0] / n;
    float var = stats[1] / n - mean * mean;
    out[i] = (raw[i] - mean) * rsqrtf(var + 1e-6f);
}

int main(int argc, char** argv) {
    int tiles = argc > 1 ? std::atoi(argv[1]) : 16;
    std::vector<unsigned short> scene(kTilePix);
    std::vector<float> result(kTilePix);

    unsigned short* d_raw = nullptr;
    float* d_stats = nullptr;
    float* d_norm = nullptr;
    CUDA_CHECK(cudaMalloc(&d_raw, kTilePix * sizeof(unsigned short)));
    CUDA_CHECK(cudaMalloc(&d_stats, 2 * sizeof(float)));

    double checksum = 0.0;
    for (int t = 0; t < tiles; ++t) {
        for (size_t i = 0; i < kTilePix; ++i) scene[i] = (unsigned short)((i * 7 + t * 1031) % 4096);
        CUDA_CHECK(cudaMemcpy(d_raw, scene.data(), kTilePix * sizeof(unsigned short), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_stats, 0, 2 * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_norm, kTilePix * sizeof(float)));  // EXPECT: device_memory_leak

        tile_stats<<<128, 256>>>(d_raw, kTilePix, d_stats);
        normalize<<<unsigned((kTilePix + 255) / 256), 256>>>(d_raw, d_norm, kTilePix, d_stats);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        if (std::isnan(d_stats[1])) {  // EXPECT: host_deref_device_ptr
            std::fprintf(stderr, "tile %d: degenerate statistics, skipped\n", t);
            continue;
        }
        CUDA_CHECK(cudaMemcpy(result.data(), d_norm, kTilePix * sizeof(float), cudaMemcpyDeviceToHost));
        checksum += result[kTilePix / 2];
    }
    std::printf("processed %d tiles, checksum %.4f\n", tiles, checksum);

    CUDA_CHECK(cudaFree(d_norm));
    CUDA_CHECK(cudaFree(d_stats));
    CUDA_CHECK(cudaFree(d_raw));
    return 0;
}
