// case: a render service's tone-mapping stream waits on an event recorded after the path-tracing kernel on another stream, downloads into pinned memory, records a second event and the host calls cudaEventSynchronize on it before reading the pixels: every access is ordered.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kW = 1920, kH = 1080;
constexpr size_t kPixels = size_t(kW) * kH;

__global__ void trace(float4* radiance, int w, int h, int spp) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w) return;
    float v = float((x ^ y) & 255) / 255.f * spp;
    radiance[y * w + x] = make_float4(v, v * 0.5f, v * 0.25f, 1.f);
}

__global__ void tonemap(const float4* radiance, uchar4* ldr, size_t n, float exposure) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    float4 c = radiance[i];
    auto m = [&](float v) { return (unsigned char)(255.f * (v * exposure) / (1.f + v * exposure)); };
    ldr[i] = make_uchar4(m(c.x), m(c.y), m(c.z), 255);
}

struct Streams {
    cudaStream_t trace{}, post{};
    Streams() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&trace, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&post, cudaStreamNonBlocking));
    }
    ~Streams() { cudaStreamDestroy(post); cudaStreamDestroy(trace); }
};

int main() {
    Streams s;
    float4* d_rad = nullptr;
    uchar4* d_ldr = nullptr;
    uchar4* h_ldr = nullptr;
    CUDA_CHECK(cudaMalloc(&d_rad, kPixels * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_ldr, kPixels * sizeof(uchar4)));
    CUDA_CHECK(cudaMallocHost(&h_ldr, kPixels * sizeof(uchar4)));
    cudaEvent_t traced, downloaded;
    CUDA_CHECK(cudaEventCreateWithFlags(&traced, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&downloaded, cudaEventDisableTiming));

    std::vector<uint64_t> frame_sums;
    for (int frame = 0; frame < 4; ++frame) {
        trace<<<dim3((kW + 127) / 128, kH), 128, 0, s.trace>>>(d_rad, kW, kH, frame + 1);
        CUDA_CHECK(cudaEventRecord(traced, s.trace));
        CUDA_CHECK(cudaStreamWaitEvent(s.post, traced, 0));
        tonemap<<<unsigned((kPixels + 255) / 256), 256, 0, s.post>>>(d_rad, d_ldr, kPixels, 0.8f);
        CUDA_CHECK(cudaMemcpyAsync(h_ldr, d_ldr, kPixels * sizeof(uchar4), cudaMemcpyDeviceToHost, s.post));
        CUDA_CHECK(cudaEventRecord(downloaded, s.post));
        // the next frame's trace may only overwrite d_rad once tonemap has read it
        CUDA_CHECK(cudaStreamWaitEvent(s.trace, downloaded, 0));

        CUDA_CHECK(cudaEventSynchronize(downloaded));
        uint64_t sum = 0;
        for (size_t i = 0; i < kPixels; i += 97) sum += h_ldr[i].x + h_ldr[i].y + h_ldr[i].z;
        frame_sums.push_back(sum);
    }
    CUDA_CHECK(cudaStreamSynchronize(s.trace));
    for (size_t f = 0; f < frame_sums.size(); ++f)
        std::printf("frame %zu luminance checksum %llu\n", f, (unsigned long long)frame_sums[f]);

    CUDA_CHECK(cudaEventDestroy(downloaded));
    CUDA_CHECK(cudaEventDestroy(traced));
    CUDA_CHECK(cudaFreeHost(h_ldr));
    CUDA_CHECK(cudaFree(d_ldr));
    CUDA_CHECK(cudaFree(d_rad));
    return 0;
}
