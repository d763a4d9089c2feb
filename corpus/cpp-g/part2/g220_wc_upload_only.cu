// case: a point-cloud uploader stages its input in write-combined pinned memory that the host only writes (std::memcpy into it), and reads results from a readback buffer that the default build allocates without the write-combined flag (the WC readback is an #ifdef'd experiment that is off).
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#define PC_CHECK(x)                                                                \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));   \
    } while (0)

__global__ void voxelize(const float4* pts, int n, float inv_cell, unsigned* occupancy, int grid) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = min(grid - 1, max(0, (int)(pts[i].x * inv_cell)));
    int y = min(grid - 1, max(0, (int)(pts[i].y * inv_cell)));
    int z = min(grid - 1, max(0, (int)(pts[i].z * inv_cell)));
    atomicAdd(&occupancy[(z * grid + y) * grid + x], 1u);
}

int main() {
    const int n = 1 << 21;
    const int grid = 64;
    const size_t cells = size_t(grid) * grid * grid;

    std::vector<float4> scan(n);
    for (int i = 0; i < n; ++i) scan[i] = make_float4((i % 640) * 0.1f, (i / 640 % 480) * 0.1f, (i % 97) * 0.5f, 1.f);

    float4* h_upload = nullptr;
    unsigned* h_occupancy = nullptr;
    PC_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_upload), n * sizeof(float4), cudaHostAllocWriteCombined));
#ifdef PC_EXPERIMENT_WC_READBACK
    PC_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_occupancy), cells * sizeof(unsigned), cudaHostAllocWriteCombined));
#else
    PC_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_occupancy), cells * sizeof(unsigned), cudaHostAllocDefault));
#endif

    float4* d_pts = nullptr;
    unsigned* d_occ = nullptr;
    PC_CHECK(cudaMalloc(&d_pts, n * sizeof(float4)));
    PC_CHECK(cudaMalloc(&d_occ, cells * sizeof(unsigned)));
    cudaStream_t stream;
    PC_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::memcpy(h_upload, scan.data(), n * sizeof(float4));  // sequential writes: what WC is for
    PC_CHECK(cudaMemcpyAsync(d_pts, h_upload, n * sizeof(float4), cudaMemcpyHostToDevice, stream));
    PC_CHECK(cudaMemsetAsync(d_occ, 0, cells * sizeof(unsigned), stream));
    voxelize<<<(n + 255) / 256, 256, 0, stream>>>(d_pts, n, 1.0f / 1.5f, d_occ, grid);
    PC_CHECK(cudaMemcpyAsync(h_occupancy, d_occ, cells * sizeof(unsigned), cudaMemcpyDeviceToHost, stream));
    PC_CHECK(cudaStreamSynchronize(stream));

    size_t occupied = 0;
    for (size_t c = 0; c < cells; ++c) occupied += h_occupancy[c] ? 1 : 0;
    std::printf("%zu of %zu voxels occupied\n", occupied, cells);

    PC_CHECK(cudaFree(d_pts));
    PC_CHECK(cudaFree(d_occ));
    PC_CHECK(cudaFreeHost(h_upload));
    PC_CHECK(cudaFreeHost(h_occupancy));
    PC_CHECK(cudaStreamDestroy(stream));
    return 0;
}
