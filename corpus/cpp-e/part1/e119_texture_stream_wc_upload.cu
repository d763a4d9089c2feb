// case: A terrain renderer streams decoded texture tiles through a cudaHostAllocWriteCombined staging buffer that the host only ever writes (memcpy into it, stores), waiting on an event before each refill; readback uses a separate cudaMallocHost buffer.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kTile = 512;
constexpr size_t kTileBytes = (size_t)kTile * kTile * 4;
constexpr int kTiles = 24;

__global__ void mip_reduce(const uchar4* tile, uint32_t* lum_sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(lum_sum, (uint32_t)(tile[i].x + tile[i].y + tile[i].z) / 3u);
}

static void decode_tile(int id, std::vector<uint8_t>& out)
{
    for (size_t i = 0; i < out.size(); ++i) out[i] = (uint8_t)((i * 31u + id * 17u) >> 3);
}

int main()
{
    cudaStream_t upload;
    cudaEvent_t staged_free;
    CUDA_CHECK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&staged_free, cudaEventDisableTiming));

    uint8_t* staging = nullptr; // host writes, GPU reads: what write-combining is for
    uint32_t* readback = nullptr;
    CUDA_CHECK(cudaHostAlloc(&staging, kTileBytes, cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaMallocHost(&readback, kTiles * sizeof(uint32_t)));

    uchar4* d_tile = nullptr;
    uint32_t* d_sums = nullptr;
    CUDA_CHECK(cudaMalloc(&d_tile, kTileBytes));
    CUDA_CHECK(cudaMalloc(&d_sums, kTiles * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemsetAsync(d_sums, 0, kTiles * sizeof(uint32_t), upload));

    std::vector<uint8_t> decoded(kTileBytes);
    for (int t = 0; t < kTiles; ++t) {
        decode_tile(t, decoded);
        CUDA_CHECK(cudaEventSynchronize(staged_free)); // previous upload has read staging (returns at once before the first record)
        std::memcpy(staging, decoded.data(), kTileBytes);
        staging[3] = 0xff; // force opaque alpha on the corner texel
        CUDA_CHECK(cudaMemcpyAsync(d_tile, staging, kTileBytes, cudaMemcpyHostToDevice, upload));
        CUDA_CHECK(cudaEventRecord(staged_free, upload));
        mip_reduce<<<kTile * kTile / 256, 256, 0, upload>>>(d_tile, d_sums + t, kTile * kTile);
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaMemcpyAsync(readback, d_sums, kTiles * sizeof(uint32_t), cudaMemcpyDeviceToHost, upload));
    CUDA_CHECK(cudaStreamSynchronize(upload));

    uint64_t total = 0;
    for (int t = 0; t < kTiles; ++t) total += readback[t];
    std::printf("mean tile luminance sum %llu\n", (unsigned long long)(total / kTiles));

    CUDA_CHECK(cudaFree(d_sums));
    CUDA_CHECK(cudaFree(d_tile));
    CUDA_CHECK(cudaFreeHost(readback));
    CUDA_CHECK(cudaFreeHost(staging));
    CUDA_CHECK(cudaEventDestroy(staged_free));
    CUDA_CHECK(cudaStreamDestroy(upload));
    return 0;
}
