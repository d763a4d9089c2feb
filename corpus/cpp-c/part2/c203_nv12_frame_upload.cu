// case: a transcoder uploads each decoded NV12 frame from a std::vector with cudaMemcpyAsync (pageable) and bumps a managed stats struct while the colour-conversion kernel, which never touches it, is running
// expect: pageable_async_copy=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                                   \
    do {                                                                           \
        cudaError_t st = (x);                                                      \
        if (st != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(st));        \
            return 1;                                                              \
        }                                                                          \
    } while (0)

struct FrameStats {
    uint64_t frames;
    uint64_t bytes_in;
    double last_pts;
};

__global__ void nv12_to_rgba(const uint8_t* nv12, uchar4* rgba, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float Y = nv12[y * w + x];
    const uint8_t* uv = nv12 + w * h + (y / 2) * w + (x & ~1);
    float U = uv[0] - 128.f, V = uv[1] - 128.f;
    auto clamp8 = [](float v) { return (unsigned char)(v < 0.f ? 0.f : (v > 255.f ? 255.f : v)); };
    rgba[y * w + x] = make_uchar4(clamp8(Y + 1.402f * V), clamp8(Y - 0.344f * U - 0.714f * V),
                                  clamp8(Y + 1.772f * U), 255);
}

// Stand-in for the demuxer + software decoder.
static bool decode_next(std::vector<uint8_t>& frame, int idx, double* pts) {
    if (idx >= 48) return false;
    for (size_t i = 0; i < frame.size(); i += 4096) frame[i] = (uint8_t)(idx + i);
    *pts = idx / 24.0;
    return true;
}

int main() {
    const int w = 1920, h = 1080;
    const size_t nv12_bytes = (size_t)w * h * 3 / 2;

    std::vector<uint8_t> frame(nv12_bytes);
    uint8_t* d_nv12 = nullptr;
    uchar4* d_rgba = nullptr;
    uchar4* h_rgba = nullptr;
    FrameStats* stats = nullptr;
    CHECK(cudaMalloc(&d_nv12, nv12_bytes));
    CHECK(cudaMalloc(&d_rgba, (size_t)w * h * sizeof(uchar4)));
    CHECK(cudaMallocHost(&h_rgba, (size_t)w * h * sizeof(uchar4)));
    CHECK(cudaMallocManaged(&stats, sizeof(FrameStats)));
    stats->frames = 0;
    stats->bytes_in = 0;
    stats->last_pts = 0.0;

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    double pts = 0.0;
    for (int idx = 0; decode_next(frame, idx, &pts); ++idx) {
        CHECK(cudaMemcpyAsync(d_nv12, frame.data(), frame.size(), cudaMemcpyHostToDevice, s)); // EXPECT: pageable_async_copy
        dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
        nv12_to_rgba<<<grid, block, 0, s>>>(d_nv12, d_rgba, w, h);
        CHECK(cudaGetLastError());

        // bookkeeping overlaps the conversion
        stats->frames += 1; // EXPECT: managed_concurrent_access
        stats->bytes_in += frame.size();
        stats->last_pts = pts;

        CHECK(cudaMemcpyAsync(h_rgba, d_rgba, (size_t)w * h * sizeof(uchar4),
                              cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        // h_rgba would go to the encoder here
    }

    std::printf("%llu frames, %llu bytes, last pts %.3f\n", (unsigned long long)stats->frames,
                (unsigned long long)stats->bytes_in, stats->last_pts);

    cudaStreamDestroy(s);
    cudaFree(stats);
    cudaFreeHost(h_rgba);
    cudaFree(d_rgba);
    cudaFree(d_nv12);
    return 0;
}
