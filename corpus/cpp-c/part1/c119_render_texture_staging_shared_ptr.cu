// case: a texture streamer's make_staging() factory allocates the upload buffer with cudaMallocHost and hands it out as a std::shared_ptr whose lambda deleter calls cudaFree, so the pinned buffer is released by the device allocator's free when the last tile job drops it.
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

using StagingPtr = std::shared_ptr<uint8_t>;

static StagingPtr make_staging(size_t bytes) {
    uint8_t* raw = nullptr;
    if (cudaMallocHost(reinterpret_cast<void**>(&raw), bytes) != cudaSuccess) return nullptr;
    return StagingPtr(raw, [](uint8_t* p) {
        cudaFree(p);  // EXPECT: mismatched_free
    });
}

struct TileJob {
    StagingPtr staging;   // shared by all tiles of one mip level
    size_t offset;
    size_t bytes;
    cudaArray_t dst;
    int x, y;
};

int main() {
    constexpr int kTile = 256, kTilesX = 8, kTilesY = 8;
    constexpr size_t kTileBytes = size_t(kTile) * kTile * 4;

    cudaChannelFormatDesc fmt = cudaCreateChannelDesc<uchar4>();
    cudaArray_t level0 = nullptr;
    cudaMallocArray(&level0, &fmt, kTile * kTilesX, kTile * kTilesY, cudaArraySurfaceLoadStore);

    cudaStream_t upload;
    cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking);

    std::vector<TileJob> jobs;
    {
        StagingPtr staging = make_staging(kTileBytes * kTilesX * kTilesY);
        if (!staging) return 1;
        for (int ty = 0; ty < kTilesY; ++ty) {
            for (int tx = 0; tx < kTilesX; ++tx) {
                size_t off = (static_cast<size_t>(ty) * kTilesX + tx) * kTileBytes;
                std::memset(staging.get() + off, (tx * 31 + ty * 17) & 0xff, kTileBytes);  // decoded texels
                jobs.push_back({staging, off, kTileBytes, level0, tx * kTile, ty * kTile});
            }
        }
    }

    for (const TileJob& j : jobs) {
        cudaMemcpy2DToArrayAsync(j.dst, j.x * 4, j.y, j.staging.get() + j.offset, kTile * 4,
                                 kTile * 4, kTile, cudaMemcpyHostToDevice, upload);
    }
    cudaStreamSynchronize(upload);
    std::printf("uploaded %zu tiles\n", jobs.size());

    jobs.clear();  // last reference to the staging buffer goes here

    cudaFreeArray(level0);
    cudaStreamDestroy(upload);
    return 0;
}
