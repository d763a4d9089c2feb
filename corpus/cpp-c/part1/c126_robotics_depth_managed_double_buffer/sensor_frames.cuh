// Depth-camera frames in managed memory, double-buffered: the host converts the next raw
// frame into one buffer while the GPU filters the other.
#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

struct ManagedFrame {
    float* depth = nullptr;   // metres
    int width = 0;
    int height = 0;
    size_t pixels() const { return static_cast<size_t>(width) * height; }
};

inline ManagedFrame make_managed_frame(int w, int h) {
    ManagedFrame f;
    f.width = w;
    f.height = h;
    if (cudaMallocManaged(&f.depth, f.pixels() * sizeof(float)) != cudaSuccess)  // cudaMemAttachGlobal
        std::fprintf(stderr, "managed alloc failed\n");
    return f;
}

inline void release(ManagedFrame& f) {
    cudaFree(f.depth);
    f.depth = nullptr;
}

__global__ void bilateral_depth(const float* depth, float* out, int w, int h, float sigma_r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float c = depth[y * w + x], num = 0.f, den = 0.f;
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
            int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
            float d = depth[yy * w + xx];
            float wgt = __expf(-(d - c) * (d - c) / (2.f * sigma_r * sigma_r));
            num += wgt * d;
            den += wgt;
        }
    out[y * w + x] = num / den;
}

class DepthPipeline {
public:
    DepthPipeline(int w, int h)
        : front_(make_managed_frame(w, h)), back_(make_managed_frame(w, h)) {
        cudaStreamCreate(&stream_);
        cudaMalloc(&d_filtered_, front_.pixels() * sizeof(float));
    }
    ~DepthPipeline() {
        cudaStreamSynchronize(stream_);
        release(front_);
        release(back_);
        cudaFree(d_filtered_);
        cudaStreamDestroy(stream_);
    }

    // Raw sensor millimetres -> metres, written straight into the managed frame.
    void ingest(ManagedFrame& dst, const std::vector<uint16_t>& raw_mm) {
        for (size_t i = 0; i < dst.pixels(); ++i) {
            dst.depth[i] = raw_mm[i] * 0.001f;  // EXPECT: managed_concurrent_access
        }
    }

    void launch_filter(const ManagedFrame& f) {
        dim3 block(16, 16), grid((f.width + 15) / 16, (f.height + 15) / 16);
        bilateral_depth<<<grid, block, 0, stream_>>>(f.depth, d_filtered_, f.width, f.height, 0.05f);
    }

    void wait() { cudaStreamSynchronize(stream_); }

    ManagedFrame& front() { return front_; }
    ManagedFrame& back() { return back_; }
    const float* filtered() const { return d_filtered_; }

private:
    ManagedFrame front_;
    ManagedFrame back_;
    float* d_filtered_ = nullptr;
    cudaStream_t stream_ = nullptr;
};
