// case: a satellite-image tiler uploads each 1 MiB RGBA tile from a std::vector frame with cudaMemcpyAsync (through an UPLOAD_TILE macro) inside the tile loop (pageable source), while the result readback uses pinned memory correctly.
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
    return 1; } } while (0)

#define UPLOAD_TILE(dst, src, bytes, stream) \
    CHECK_CUDA(cudaMemcpyAsync((dst), (src), (bytes), cudaMemcpyHostToDevice, (stream)))

constexpr int kTile = 512;
constexpr size_t kTileBytes = (size_t)kTile * kTile * 4;   // 1 MiB of RGBA8

__global__ void ndvi_tile(const uchar4* rgba, float* ndvi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = rgba[i];
    float nir = p.w, red = p.x;
    ndvi[i] = (nir - red) / (nir + red + 1e-6f);
}

__global__ void tile_mean(const float* ndvi, int n, float* out, int tile) {
    __shared__ float acc[256];
    float s = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += ndvi[i];
    acc[threadIdx.x] = s;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) acc[threadIdx.x] += acc[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[tile] = acc[0] / n;
}

int main() {
    const int tilesX = 8, tilesY = 8, numTiles = tilesX * tilesY;
    std::vector<uint8_t> frame(kTileBytes * numTiles);
    for (size_t i = 0; i < frame.size(); ++i) frame[i] = (uint8_t)(i * 31 + 7);

    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    uchar4* d_tile = nullptr;
    float* d_ndvi = nullptr;
    float* d_means = nullptr;
    float* h_means = nullptr;
    const int px = kTile * kTile;
    CHECK_CUDA(cudaMalloc(&d_tile, kTileBytes));
    CHECK_CUDA(cudaMalloc(&d_ndvi, px * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_means, numTiles * sizeof(float)));
    CHECK_CUDA(cudaMallocHost(&h_means, numTiles * sizeof(float)));

    for (int t = 0; t < numTiles; ++t) {
        const uint8_t* src = frame.data() + (size_t)t * kTileBytes;
        UPLOAD_TILE(d_tile, src, kTileBytes, s);
        ndvi_tile<<<(px + 255) / 256, 256, 0, s>>>(d_tile, d_ndvi, px);
        tile_mean<<<1, 256, 0, s>>>(d_ndvi, px, d_means, t);
    }
    CHECK_CUDA(cudaMemcpyAsync(h_means, d_means, numTiles * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));

    float vegetated = 0;
    for (int t = 0; t < numTiles; ++t) vegetated += h_means[t] > 0.3f ? 1.f : 0.f;
    printf("%d of %d tiles vegetated\n", (int)vegetated, numTiles);

    cudaFreeHost(h_means);
    cudaFree(d_means);
    cudaFree(d_ndvi);
    cudaFree(d_tile);
    cudaStreamDestroy(s);
    return 0;
}
