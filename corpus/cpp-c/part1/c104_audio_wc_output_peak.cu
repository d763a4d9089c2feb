// case: a multichannel FIR processor allocates both its staging buffers with cudaHostAllocWriteCombined; the output buffer is the destination of a device-to-host copy and the host then scans it for the peak level, reading write-combined memory.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace dsp {

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__global__ void fir_block(const float* in, float* out, const float* taps, int taps_n,
                          int frames, int channels) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= frames * channels) return;
    int ch = idx % channels, f = idx / channels;
    float acc = 0.f;
    for (int t = 0; t < taps_n && t <= f; ++t) acc += taps[t] * in[(f - t) * channels + ch];
    out[idx] = acc;
}

class FirProcessor {
public:
    FirProcessor(int frames, int channels, int taps)
        : frames_(frames), channels_(channels), taps_(taps),
          samples_(static_cast<size_t>(frames) * channels) {
        const unsigned flags = cudaHostAllocWriteCombined;
        check(cudaHostAlloc(reinterpret_cast<void**>(&h_in_), samples_ * sizeof(float), flags), "alloc in");
        check(cudaHostAlloc(reinterpret_cast<void**>(&h_out_), samples_ * sizeof(float), flags), "alloc out");
        check(cudaMalloc(&d_in_, samples_ * sizeof(float)), "d_in");
        check(cudaMalloc(&d_out_, samples_ * sizeof(float)), "d_out");
        check(cudaMalloc(&d_taps_, taps_ * sizeof(float)), "d_taps");
        check(cudaStreamCreate(&stream_), "stream");
    }
    ~FirProcessor() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_in_);
        cudaFreeHost(h_out_);
        cudaFree(d_in_);
        cudaFree(d_out_);
        cudaFree(d_taps_);
        cudaStreamDestroy(stream_);
    }

    void set_lowpass(float cutoff) {
        float taps[256];
        for (int t = 0; t < taps_; ++t) {
            float x = t - (taps_ - 1) * 0.5f;
            taps[t] = (x == 0.f) ? 2.f * cutoff : std::sin(2.f * 3.14159265f * cutoff * x) / (3.14159265f * x);
        }
        check(cudaMemcpy(d_taps_, taps, taps_ * sizeof(float), cudaMemcpyHostToDevice), "taps");
    }

    // Returns the peak absolute output sample of the processed block.
    float process(const float* interleaved) {
        for (size_t i = 0; i < samples_; ++i) h_in_[i] = interleaved[i];  // host writes: what WC is for
        check(cudaMemcpyAsync(d_in_, h_in_, samples_ * sizeof(float), cudaMemcpyHostToDevice, stream_), "h2d");
        int threads = 256, blocks = static_cast<int>((samples_ + threads - 1) / threads);
        fir_block<<<blocks, threads, 0, stream_>>>(d_in_, d_out_, d_taps_, taps_, frames_, channels_);
        check(cudaMemcpyAsync(h_out_, d_out_, samples_ * sizeof(float), cudaMemcpyDeviceToHost, stream_), "d2h");
        check(cudaStreamSynchronize(stream_), "sync");

        float peak = 0.f;
        for (size_t i = 0; i < samples_; ++i) {
            peak = std::fmax(peak, std::fabs(h_out_[i]));  // EXPECT: write_combined_host_read
        }
        return peak;
    }

private:
    int frames_, channels_, taps_;
    size_t samples_;
    float* h_in_ = nullptr;
    float* h_out_ = nullptr;
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
    float* d_taps_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

}  // namespace dsp

int main() {
    constexpr int kFrames = 48000, kChannels = 8;
    static float block[kFrames * kChannels];
    for (int i = 0; i < kFrames * kChannels; ++i) block[i] = std::sin(0.01f * i);
    dsp::FirProcessor fir(kFrames, kChannels, 127);
    fir.set_lowpass(0.1f);
    std::printf("peak %.4f dBFS\n", 20.f * std::log10(fir.process(block) + 1e-9f));
    return 0;
}
