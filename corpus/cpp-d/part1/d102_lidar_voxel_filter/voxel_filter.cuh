// Voxel-grid ground/band filter for one lidar sweep (driver-API buffers, runtime launch).
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorString(r_, &s_);                                            \
            fprintf(stderr, "%s failed: %s\n", #call, s_ ? s_ : "unknown");       \
            std::abort();                                                         \
        }                                                                         \
    } while (0)

struct VoxelParams {
    float leaf;
    float min_z;
    float max_z;
    int n;
};

__global__ void voxel_mark(const float4* pts, uint8_t* keep, VoxelParams p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    float4 q = pts[i];
    bool in_band = q.z >= p.min_z && q.z <= p.max_z;
    int vx = (int)floorf(q.x / p.leaf);
    int vy = (int)floorf(q.y / p.leaf);
    keep[i] = (in_band && ((vx ^ vy) & 1) == 0) ? 1 : 0;
}

class LidarStage {
public:
    LidarStage() { CU_CHECK(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING)); }
    virtual ~LidarStage() { cuStreamDestroy(stream_); }
    CUstream stream() const { return stream_; }

protected:
    CUstream stream_ = nullptr;
};

class VoxelFilter : public LidarStage {
public:
    explicit VoxelFilter(size_t max_points) : capacity_(max_points)
    {
        CU_CHECK(cuMemAlloc(&d_points_, capacity_ * sizeof(float4)));
        CU_CHECK(cuMemAlloc(&d_keep_, capacity_));
        // the keep mask comes back every sweep: "write-combined for fast transfers"
        CU_CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&h_keep_), capacity_,
                                CU_MEMHOSTALLOC_WRITECOMBINED));
        points_.reserve(capacity_);
    }

    ~VoxelFilter() override
    {
        cuStreamSynchronize(stream_);
        cuMemFreeHost(h_keep_);
        cuMemFree(d_keep_);
        cuMemFree(d_points_);
    }

    void add_point(float x, float y, float z, float intensity)
    {
        if (points_.size() < capacity_) points_.push_back(make_float4(x, y, z, intensity));
    }

    size_t size() const { return points_.size(); }
    const uint8_t* keep_mask() const { return h_keep_; }

    void run(float leaf)
    {
        const size_t n = points_.size();
        CU_CHECK(cuMemcpyHtoDAsync(d_points_, points_.data(), n * sizeof(float4), stream_)); // EXPECT: pageable_async_copy
        VoxelParams p{leaf, -2.0f, 4.0f, static_cast<int>(n)};
        const int threads = 256;
        const int blocks = static_cast<int>((n + threads - 1) / threads);
        voxel_mark<<<blocks, threads, 0, stream_>>>(reinterpret_cast<const float4*>(d_points_),
                                                    reinterpret_cast<uint8_t*>(d_keep_), p);
        CU_CHECK(cuMemcpyDtoHAsync(h_keep_, d_keep_, n, stream_));
        CU_CHECK(cuStreamSynchronize(stream_));
    }

private:
    size_t capacity_;
    std::vector<float4> points_;
    CUdeviceptr d_points_ = 0;
    CUdeviceptr d_keep_ = 0;
    uint8_t* h_keep_ = nullptr;
};
