// case: a multichannel resampler uploads its planar std::vector input with cudaMemcpy2DAsync and downloads each channel in a loop through a FETCH_ROW macro (cudaMemcpyAsync) into a new[] buffer, both pageable and far above 64 KiB (the reads come after a stream synchronize).
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#define AUDIO_CUDA(x)                                                              \
    do {                                                                           \
        cudaError_t e = (x);                                                       \
        if (e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e));     \
    } while (0)

// Download one pitched device row into a host row.
#define FETCH_ROW(dst, src, bytes, stream) \
    AUDIO_CUDA(cudaMemcpyAsync((dst), (src), (bytes), cudaMemcpyDeviceToHost, (stream)))

__global__ void upsample2x(const float* in, size_t in_pitch, float* out, size_t out_pitch,
                           int frames) {
    int ch = blockIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frames) return;
    const float* src = reinterpret_cast<const float*>(reinterpret_cast<const char*>(in) + ch * in_pitch);
    float* dst = reinterpret_cast<float*>(reinterpret_cast<char*>(out) + ch * out_pitch);
    float a = src[i];
    float b = (i + 1 < frames) ? src[i + 1] : a;
    dst[2 * i] = a;
    dst[2 * i + 1] = 0.5f * (a + b);
}

class MultiChannelResampler {
public:
    MultiChannelResampler(int channels, int frames)
        : channels_(channels), frames_(frames), planar_(static_cast<size_t>(channels) * frames),
          out_(new float[static_cast<size_t>(channels) * frames * 2]) {
        AUDIO_CUDA(cudaStreamCreate(&stream_));
        AUDIO_CUDA(cudaMallocPitch(&d_in_, &in_pitch_, frames * sizeof(float), channels));
        AUDIO_CUDA(cudaMallocPitch(&d_out_, &out_pitch_, 2 * frames * sizeof(float), channels));
    }
    ~MultiChannelResampler() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_in_);
        cudaFree(d_out_);
        cudaStreamDestroy(stream_);
    }

    float* channel(int c) { return planar_.data() + static_cast<size_t>(c) * frames_; }

    const float* process() {
        AUDIO_CUDA(cudaMemcpy2DAsync(d_in_, in_pitch_, planar_.data(), frames_ * sizeof(float),
                                     frames_ * sizeof(float), channels_, cudaMemcpyHostToDevice,
                                     stream_));
        dim3 grid((frames_ + 255) / 256, channels_);
        upsample2x<<<grid, 256, 0, stream_>>>(d_in_, in_pitch_, d_out_, out_pitch_, frames_);
        const size_t out_frames = static_cast<size_t>(frames_) * 2;
        for (int c = 0; c < channels_; ++c) {
            const float* src_row = reinterpret_cast<const float*>(
                reinterpret_cast<const char*>(d_out_) + c * out_pitch_);
            FETCH_ROW(out_.get() + c * out_frames, src_row, out_frames * sizeof(float), stream_);
        }
        AUDIO_CUDA(cudaStreamSynchronize(stream_));
        return out_.get();
    }

private:
    int channels_, frames_;
    std::vector<float> planar_;
    std::unique_ptr<float[]> out_;
    cudaStream_t stream_{};
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
    size_t in_pitch_ = 0, out_pitch_ = 0;
};

int main() {
    constexpr int kChannels = 8;
    constexpr int kFrames = 48000 * 4;
    MultiChannelResampler rs(kChannels, kFrames);
    for (int c = 0; c < kChannels; ++c) {
        float* ch = rs.channel(c);
        for (int i = 0; i < kFrames; ++i) ch[i] = 0.25f * ((i * (c + 1)) % 200 - 100) / 100.0f;
    }
    const float* out = rs.process();
    double energy = 0.0;
    for (size_t i = 0; i < size_t(kChannels) * kFrames * 2; ++i) energy += out[i] * out[i];
    std::printf("output energy %.3f\n", energy);
    return 0;
}
