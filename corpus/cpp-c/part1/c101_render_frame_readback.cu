// case: a path tracer's FrameReadback tone-maps the HDR frame and copies it into pinned memory on its own stream; the only wait is under RENDER_DEBUG_SYNC, which nothing defines, so averageLuma() reads the pinned frame while the copy may still be running.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,              \
                         cudaGetErrorString(err_));                             \
            std::exit(EXIT_FAILURE);                                            \
        }                                                                       \
    } while (0)

__global__ void tonemap_aces(const float4* hdr, uchar4* ldr, int pixels, float exposure) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    float4 c = hdr[i];
    auto aces = [](float x) {
        x = fminf(fmaxf((x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f), 0.f), 1.f);
        return static_cast<unsigned char>(x * 255.f);
    };
    ldr[i] = make_uchar4(aces(c.x * exposure), aces(c.y * exposure), aces(c.z * exposure), 255);
}

class FrameReadback {
public:
    FrameReadback(int width, int height)
        : width_(width), height_(height), pixels_(width * height) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_hdr_, pixels_ * sizeof(float4)));
        CUDA_CHECK(cudaMalloc(&d_ldr_, pixels_ * sizeof(uchar4)));
        CUDA_CHECK(cudaMallocHost(&h_ldr_, pixels_ * sizeof(uchar4)));
        CUDA_CHECK(cudaMemsetAsync(d_hdr_, 0, pixels_ * sizeof(float4), stream_));
    }

    ~FrameReadback() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_ldr_);
        cudaFree(d_ldr_);
        cudaFree(d_hdr_);
        cudaStreamDestroy(stream_);
    }

    float4* hdr() { return d_hdr_; }

    // Tone-map, bring the 8-bit frame back and return its mean luminance for auto-exposure.
    float readback(float exposure) {
        const int block = 256;
        const int grid = (pixels_ + block - 1) / block;
        tonemap_aces<<<grid, block, 0, stream_>>>(d_hdr_, d_ldr_, pixels_, exposure);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_ldr_, d_ldr_, pixels_ * sizeof(uchar4),
                                   cudaMemcpyDeviceToHost, stream_));
#ifdef RENDER_DEBUG_SYNC
        CUDA_CHECK(cudaStreamSynchronize(stream_));
#endif
        return averageLuma();
    }

    const uchar4* frame() const { return h_ldr_; }

private:
    float averageLuma() const {
        double sum = 0.0;
        for (int i = 0; i < pixels_; ++i) {
            const uchar4 p = h_ldr_[i];  // EXPECT: missing_sync
            sum += 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z;
        }
        return static_cast<float>(sum / pixels_);
    }

    int width_, height_, pixels_;
    cudaStream_t stream_ = nullptr;
    float4* d_hdr_ = nullptr;
    uchar4* d_ldr_ = nullptr;
    uchar4* h_ldr_ = nullptr;
};

int main() {
    FrameReadback rb(1920, 1080);
    float exposure = 1.0f;
    for (int frame = 0; frame < 4; ++frame) {
        const float luma = rb.readback(exposure);
        exposure *= (luma > 1e-3f) ? 118.0f / luma : 1.0f;
        std::printf("frame %d: mean luma %.2f, next exposure %.3f\n", frame, luma, exposure);
    }
    return 0;
}
