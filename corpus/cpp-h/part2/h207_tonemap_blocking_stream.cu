// case: path tracer accumulates radiance with kernels on a blocking stream from cudaStreamCreate, then reads the tone-mapped image back with plain cudaMemcpy into a std::vector; the legacy default stream waits for blocking streams, so no synchronize is missing.
// expect: none
#include <cuda_runtime.h>
#include <vector>
#include <cstdio>
#include <cstdint>

__global__ void accumulate(float3* accum, int w, int h, int frame, unsigned seed) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned s = seed ^ (x * 1973u + y * 9277u + frame * 26699u);
    s = s * 747796405u + 2891336453u;
    float r = (s & 0xffff) / 65535.0f;
    float3& a = accum[y * w + x];
    a.x += r; a.y += 0.5f * r; a.z += 0.25f * r;
}

__global__ void tonemap(const float3* accum, uchar4* out, int w, int h, float inv_frames) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float3 c = accum[y * w + x];
    auto tm = [](float v) { v = v / (1.0f + v); return (unsigned char)(255.0f * v); };
    out[y * w + x] = make_uchar4(tm(c.x * inv_frames), tm(c.y * inv_frames), tm(c.z * inv_frames), 255);
}

class Renderer {
public:
    Renderer(int w, int h) : w_(w), h_(h), pixels_(size_t(w) * h) {
        cudaStreamCreate(&stream_);
        cudaMalloc(&d_accum_, size_t(w_) * h_ * sizeof(float3));
        cudaMalloc(&d_out_, size_t(w_) * h_ * sizeof(uchar4));
        cudaMemsetAsync(d_accum_, 0, size_t(w_) * h_ * sizeof(float3), stream_);
    }
    ~Renderer() {
        cudaFree(d_accum_);
        cudaFree(d_out_);
        cudaStreamDestroy(stream_);
    }

    const std::vector<uchar4>& render(int spp) {
        dim3 block(16, 16), grid((w_ + 15) / 16, (h_ + 15) / 16);
        for (int f = 0; f < spp; ++f) accumulate<<<grid, block, 0, stream_>>>(d_accum_, w_, h_, f, 1234u);
        tonemap<<<grid, block, 0, stream_>>>(d_accum_, d_out_, w_, h_, 1.0f / spp);
        cudaMemcpy(pixels_.data(), d_out_, pixels_.size() * sizeof(uchar4), cudaMemcpyDeviceToHost);
        return pixels_;
    }

private:
    int w_, h_;
    std::vector<uchar4> pixels_;
    cudaStream_t stream_{};
    float3* d_accum_ = nullptr;
    uchar4* d_out_ = nullptr;
};

int main() {
    Renderer r(1280, 720);
    const auto& img = r.render(64);
    uint64_t luma = 0;
    for (const uchar4& p : img) luma += p.x + p.y + p.z;
    printf("mean luma %.3f\n", double(luma) / (3.0 * img.size()));
    return 0;
}
