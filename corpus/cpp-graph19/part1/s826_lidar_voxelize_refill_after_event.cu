// LiDAR mapping: each sweep's points are packed into a pinned staging buffer and the
// recorded graph uploads them and marks the voxels they hit in an occupancy grid that stays
// on the device. After each replay the loop records an event, and before it packs the next
// sweep into the staging buffer it waits for that event.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "mapper: %s (%s:%d)\n", cudaGetErrorString(e_),          \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

constexpr int kGrid = 256;        // voxels per axis
constexpr float kVoxel = 0.2f;    // metres
constexpr int kPoints = 120000;   // points per sweep

__global__ void mark_voxels(const float4* __restrict__ pts, int n, unsigned char* __restrict__ occ) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pts[i];
    int x = static_cast<int>(p.x / kVoxel) + kGrid / 2;
    int y = static_cast<int>(p.y / kVoxel) + kGrid / 2;
    int z = static_cast<int>(p.z / kVoxel) + kGrid / 8;
    if (x < 0 || y < 0 || z < 0 || x >= kGrid || y >= kGrid || z >= kGrid) return;
    occ[(static_cast<size_t>(z) * kGrid + y) * kGrid + x] = 1;
}

static void read_sweep(int sweep, float4* pts) {
    for (int i = 0; i < kPoints; ++i) {
        float az = 6.2831853f * i / kPoints + 0.01f * sweep;
        float r = 5.0f + 10.0f * ((i * 7 + sweep) % 100) / 100.0f;
        pts[i] = make_float4(r * std::cos(az), r * std::sin(az), -1.5f + 0.002f * (i % 1500), 1.0f);
    }
}

int main() {
    const size_t pts_bytes = kPoints * sizeof(float4);
    const size_t grid_bytes = static_cast<size_t>(kGrid) * kGrid * kGrid;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t replay_done;
    CUDA_CHECK(cudaEventCreateWithFlags(&replay_done, cudaEventDisableTiming));
    float4 *h_pts, *d_pts;
    unsigned char* d_occ;
    CUDA_CHECK(cudaMallocHost(&h_pts, pts_bytes));
    CUDA_CHECK(cudaMalloc(&d_pts, pts_bytes));
    CUDA_CHECK(cudaMalloc(&d_occ, grid_bytes));
    CUDA_CHECK(cudaMemsetAsync(d_occ, 0, grid_bytes, stream));

    cudaGraph_t graph;
    cudaGraphExec_t sweep_exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_pts, h_pts, pts_bytes, cudaMemcpyHostToDevice, stream));
    mark_voxels<<<(kPoints + 255) / 256, 256, 0, stream>>>(d_pts, kPoints, d_occ);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&sweep_exec, graph, 0));

    CUDA_CHECK(cudaEventRecord(replay_done, stream));  // so the first wait has an event to wait on
    const int sweeps = 600;
    for (int s = 0; s < sweeps; ++s) {
        CUDA_CHECK(cudaEventSynchronize(replay_done));  // the last replay has read h_pts
        read_sweep(s, h_pts);
        CUDA_CHECK(cudaGraphLaunch(sweep_exec, stream));
        CUDA_CHECK(cudaEventRecord(replay_done, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::vector<unsigned char> occ(grid_bytes);
    CUDA_CHECK(cudaMemcpy(occ.data(), d_occ, grid_bytes, cudaMemcpyDeviceToHost));
    size_t occupied = 0;
    for (unsigned char v : occ) occupied += v;
    std::printf("%zu occupied voxels after %d sweeps\n", occupied, sweeps);

    CUDA_CHECK(cudaGraphExecDestroy(sweep_exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_occ));
    CUDA_CHECK(cudaFree(d_pts));
    CUDA_CHECK(cudaFreeHost(h_pts));
    CUDA_CHECK(cudaEventDestroy(replay_done));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
