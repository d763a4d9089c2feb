// case: A signed-distance-field ray marcher renders image tiles on several streams with buffers owned by unique_ptrs whose deleters match their allocators (cudaFree for cudaMalloc, cudaFreeHost for cudaMallocHost), one buffer released by hand after release() with the matching call, and every stream synchronized before the host reads or the owners go out of scope; correct.
// expect: none
#include "cuda_memory.cuh"
#include <cmath>
#include <vector>

constexpr int kWidth = 2048;
constexpr int kHeight = 1024;
constexpr int kTiles = 4;
constexpr int kTileRows = kHeight / kTiles;

__device__ float sdf_scene(float3 p) {
    float sphere = sqrtf(p.x * p.x + p.y * p.y + (p.z - 3.0f) * (p.z - 3.0f)) - 1.0f;
    float plane = p.y + 1.0f;
    return fminf(sphere, plane);
}

__global__ void march_tile(float* depth, int row0, int rows, int width, int height, int max_steps) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int ty = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || ty >= rows) return;
    int y = row0 + ty;
    float u = (2.0f * x - width) / height, v = (height - 2.0f * y) / height;
    float3 dir = make_float3(u, v, 1.5f);
    float inv = rsqrtf(dir.x * dir.x + dir.y * dir.y + dir.z * dir.z);
    dir.x *= inv; dir.y *= inv; dir.z *= inv;
    float t = 0.0f;
    for (int i = 0; i < max_steps && t < 50.0f; ++i) {
        float d = sdf_scene(make_float3(dir.x * t, dir.y * t, dir.z * t));
        if (d < 1e-3f) break;
        t += d;
    }
    depth[ty * width + x] = t;
}

int main() {
    std::vector<unique_stream> streams;
    std::vector<device_unique_ptr<float>> d_tiles;
    for (int i = 0; i < kTiles; ++i) {
        streams.push_back(make_stream());
        d_tiles.push_back(make_device<float>(size_t(kTileRows) * kWidth));
    }
    pinned_unique_ptr<float> h_depth = make_pinned<float>(size_t(kWidth) * kHeight);

    dim3 block(32, 8), grid((kWidth + 31) / 32, (kTileRows + 7) / 8);
    for (int i = 0; i < kTiles; ++i) {
        march_tile<<<grid, block, 0, streams[i].get()>>>(d_tiles[i].get(), i * kTileRows, kTileRows,
                                                         kWidth, kHeight, 128);
        CUDA_CHECK(cudaMemcpyAsync(h_depth.get() + size_t(i) * kTileRows * kWidth, d_tiles[i].get(),
                                   size_t(kTileRows) * kWidth * sizeof(float), cudaMemcpyDeviceToHost,
                                   streams[i].get()));
    }
    CUDA_CHECK(cudaGetLastError());
    for (auto& s : streams) CUDA_CHECK(cudaStreamSynchronize(s.get()));

    int hits = 0;
    double mean_depth = 0.0;
    for (size_t i = 0; i < size_t(kWidth) * kHeight; ++i) {
        hits += h_depth[i] < 50.0f;
        mean_depth += h_depth[i];
    }
    std::printf("hit pixels %d of %d, mean depth %.3f\n", hits, kWidth * kHeight, mean_depth / (kWidth * kHeight));

    // A histogram buffer handed to a C-style section that frees it itself.
    device_unique_ptr<unsigned> d_hist = make_device<unsigned>(64);
    unsigned* raw_hist = d_hist.release();
    CUDA_CHECK(cudaMemset(raw_hist, 0, 64 * sizeof(unsigned)));
    unsigned h_hist[64];
    CUDA_CHECK(cudaMemcpy(h_hist, raw_hist, sizeof(h_hist), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(raw_hist));
    std::printf("hist[0] = %u\n", h_hist[0]);
    return 0;
}
