// case: video ingest: each decoded RGBA frame is kept in a std::vector<uint8_t> member and uploaded with cudaMemcpyAsync on the ingest stream, so the async copy's host side is pageable
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void rgba_to_luma(const uint8_t* rgba, float* luma, int pixels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    const uint8_t* p = rgba + 4 * i;
    luma[i] = 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
}

class FrameIngest {
public:
    FrameIngest(int width, int height) : width_(width), height_(height) {
        frame_.resize(static_cast<size_t>(width_) * height_ * 4);
        CUDA_CHECK(cudaStreamCreate(&stream_));
        CUDA_CHECK(cudaMalloc(&d_frame_, frame_.size()));
        CUDA_CHECK(cudaMalloc(&d_luma_, static_cast<size_t>(width_) * height_ * sizeof(float)));
    }
    ~FrameIngest() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_luma_);
        cudaFree(d_frame_);
        cudaStreamDestroy(stream_);
    }

    void decode_into_frame(int frame_no) {
        for (size_t i = 0; i < frame_.size(); ++i)
            frame_[i] = static_cast<uint8_t>((i + frame_no) & 0xff);
    }

    void push(int frame_no) {
        decode_into_frame(frame_no);
        CUDA_CHECK(cudaMemcpyAsync(d_frame_, frame_.data(), frame_.size(), cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
        int pixels = width_ * height_;
        rgba_to_luma<<<(pixels + 255) / 256, 256, 0, stream_>>>(d_frame_, d_luma_, pixels);
        CUDA_CHECK(cudaGetLastError());
    }

    void finish() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    int width_, height_;
    std::vector<uint8_t> frame_;
    cudaStream_t stream_ = nullptr;
    uint8_t* d_frame_ = nullptr;
    float* d_luma_ = nullptr;
};

int main() {
    FrameIngest ingest(1920, 1080);
    for (int f = 0; f < 30; ++f) ingest.push(f);
    ingest.finish();
    std::puts("ingested 30 frames");
    return 0;
}
