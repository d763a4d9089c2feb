// case: audio-feature plugin owns a malloc'd input staging buffer that it uploads with cudaMemcpyAsync (pageable), and a cudaHostAlloc'd output buffer that its destructor releases with free()
// expect: pageable_async_copy=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void log_energy(const float* frames, int n_frames, int frame_len, float* energy) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= n_frames) return;
    float e = 1e-10f;
    for (int i = 0; i < frame_len; ++i) e += frames[(size_t)f * frame_len + i] * frames[(size_t)f * frame_len + i];
    energy[f] = logf(e);
}

class FeaturePlugin {
public:
    FeaturePlugin(int max_frames, int frame_len) : max_frames_(max_frames), frame_len_(frame_len) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        in_bytes_ = (size_t)max_frames * frame_len * sizeof(float);
        h_in_ = static_cast<float*>(std::malloc(in_bytes_));
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_out_), max_frames * sizeof(float), cudaHostAllocDefault));
        CUDA_CHECK(cudaMalloc(&d_in_, in_bytes_));
        CUDA_CHECK(cudaMalloc(&d_out_, max_frames * sizeof(float)));
    }

    ~FeaturePlugin() {
        cudaStreamSynchronize(stream_);
        std::free(h_in_);
        std::free(h_out_); // EXPECT: mismatched_free
        cudaFree(d_in_);
        cudaFree(d_out_);
        cudaStreamDestroy(stream_);
    }

    float* input() { return h_in_; }

    float process(int n_frames) {
        const size_t bytes = (size_t)n_frames * frame_len_ * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(d_in_, h_in_, bytes, cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
        log_energy<<<(n_frames + 127) / 128, 128, 0, stream_>>>(d_in_, n_frames, frame_len_, d_out_);
        CUDA_CHECK(cudaMemcpyAsync(h_out_, d_out_, n_frames * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        float peak = h_out_[0];
        for (int f = 1; f < n_frames; ++f) peak = std::fmax(peak, h_out_[f]);
        return peak;
    }

private:
    int max_frames_, frame_len_;
    size_t in_bytes_ = 0;
    cudaStream_t stream_{};
    float* h_in_ = nullptr;
    float* h_out_ = nullptr;
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
};

int main() {
    const int frames = 2048, len = 400;
    FeaturePlugin plugin(frames, len);
    for (int i = 0; i < frames * len; ++i) plugin.input()[i] = std::sin(0.01f * i);
    std::printf("peak log-energy %f\n", plugin.process(frames));
    return 0;
}
