// case: an audio spectrogram stage streams 1 MiB blocks through std::vectors whose allocator calls cudaMallocHost, so the cudaMemcpyAsync calls that look like pageable vector copies are pinned, and the output vector is read only after the stream is synchronized.
// expect: none
#include "pinned_allocator.h"
#include <cmath>
#include <cstdio>
#include <stdexcept>

#define CHECK_CUDA(call)                                                          \
    do {                                                                          \
        cudaError_t err = (call);                                                 \
        if (err != cudaSuccess) throw std::runtime_error(cudaGetErrorString(err)); \
    } while (0)

__global__ void power_spectrum(const float2* bins, float* power, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 b = bins[i];
        power[i] = 10.0f * log10f(b.x * b.x + b.y * b.y + 1e-12f);
    }
}

class SpectrogramStage {
public:
    explicit SpectrogramStage(int bins_per_block) : n_(bins_per_block), in_(n_), out_(n_) {
        CHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CHECK_CUDA(cudaMalloc(&d_bins_, sizeof(float2) * n_));
        CHECK_CUDA(cudaMalloc(&d_power_, sizeof(float) * n_));
    }
    ~SpectrogramStage() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_bins_);
        cudaFree(d_power_);
        cudaStreamDestroy(stream_);
    }

    float process_block(int block) {
        for (int i = 0; i < n_; ++i) in_[i] = make_float2(std::sin(0.001f * i * block), std::cos(0.002f * i));
        CHECK_CUDA(cudaMemcpyAsync(d_bins_, in_.data(), in_.size() * sizeof(float2),
                                   cudaMemcpyHostToDevice, stream_));
        power_spectrum<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_bins_, d_power_, n_);
        CHECK_CUDA(cudaMemcpyAsync(out_.data(), d_power_, out_.size() * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));
        CHECK_CUDA(cudaStreamSynchronize(stream_));
        float peak = -1e30f;
        for (float p : out_) peak = p > peak ? p : peak;
        return peak;
    }

private:
    int n_;
    pinned_vector<float2> in_;
    pinned_vector<float> out_;
    cudaStream_t stream_{};
    float2* d_bins_ = nullptr;
    float* d_power_ = nullptr;
};

int main() {
    SpectrogramStage stage(1 << 17);
    for (int b = 0; b < 8; ++b) std::printf("block %d peak %.2f dB\n", b, stage.process_block(b));
    return 0;
}
