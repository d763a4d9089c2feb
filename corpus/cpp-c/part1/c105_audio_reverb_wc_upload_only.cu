// case: a convolution reverb stages each input block in a write-combined buffer that the host only writes (gain applied on the way in) and the DMA reads, and brings the wet signal back into a separate cudaHostAllocDefault buffer that it reads after cudaStreamSynchronize; no host read of write-combined memory.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CU(x)                                                                     \
    do {                                                                          \
        cudaError_t e = (x);                                                      \
        if (e != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::abort(); } \
    } while (0)

__global__ void convolve_ir(const float* in, const float* ir, int ir_len, const float* history,
                            int frames, float* wet) {
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= frames) return;
    float acc = 0.f;
    for (int k = 0; k < ir_len; ++k) {
        int idx = n - k;
        acc += ir[k] * (idx >= 0 ? in[idx] : history[ir_len + idx]);
    }
    wet[n] = acc;
}

class ConvolutionReverb {
public:
    ConvolutionReverb(int frames, const std::vector<float>& impulse)
        : frames_(frames), ir_len_(static_cast<int>(impulse.size())) {
        CU(cudaHostAlloc(reinterpret_cast<void**>(&in_wc_), frames_ * sizeof(float), cudaHostAllocWriteCombined));
        CU(cudaHostAlloc(reinterpret_cast<void**>(&wet_), frames_ * sizeof(float), cudaHostAllocDefault));
        CU(cudaMalloc(&d_in_, frames_ * sizeof(float)));
        CU(cudaMalloc(&d_wet_, frames_ * sizeof(float)));
        CU(cudaMalloc(&d_ir_, ir_len_ * sizeof(float)));
        CU(cudaMalloc(&d_hist_, ir_len_ * sizeof(float)));
        CU(cudaMemcpy(d_ir_, impulse.data(), ir_len_ * sizeof(float), cudaMemcpyHostToDevice));
        CU(cudaMemset(d_hist_, 0, ir_len_ * sizeof(float)));
        CU(cudaStreamCreate(&stream_));
    }
    ~ConvolutionReverb() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(in_wc_);
        cudaFreeHost(wet_);
        cudaFree(d_in_);
        cudaFree(d_wet_);
        cudaFree(d_ir_);
        cudaFree(d_hist_);
        cudaStreamDestroy(stream_);
    }

    // Called from the audio thread with the dry block; writes dry/wet mix into `out`.
    void process(const float* dry, float gain, float mix, float* out) {
        for (int i = 0; i < frames_; ++i) in_wc_[i] = dry[i] * gain;   // write-only into WC memory
        CU(cudaMemcpyAsync(d_in_, in_wc_, frames_ * sizeof(float), cudaMemcpyHostToDevice, stream_));
        convolve_ir<<<(frames_ + 255) / 256, 256, 0, stream_>>>(d_in_, d_ir_, ir_len_, d_hist_, frames_, d_wet_);
        CU(cudaMemcpyAsync(d_hist_, d_in_ + frames_ - ir_len_, ir_len_ * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
        CU(cudaMemcpyAsync(wet_, d_wet_, frames_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CU(cudaStreamSynchronize(stream_));
        for (int i = 0; i < frames_; ++i) out[i] = (1.f - mix) * dry[i] + mix * wet_[i];
    }

private:
    int frames_, ir_len_;
    float* in_wc_ = nullptr;
    float* wet_ = nullptr;
    float* d_in_ = nullptr;
    float* d_wet_ = nullptr;
    float* d_ir_ = nullptr;
    float* d_hist_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

int main() {
    const int frames = 1 << 15;
    std::vector<float> ir(2048);
    for (size_t k = 0; k < ir.size(); ++k) ir[k] = std::exp(-0.003f * k) * (static_cast<int>((k * 7919) % 13) - 6) / 6.f;
    ConvolutionReverb reverb(frames, ir);

    std::vector<float> dry(frames), out(frames);
    for (int block = 0; block < 8; ++block) {
        for (int i = 0; i < frames; ++i) dry[i] = std::sin(0.05f * (i + block * frames));
        reverb.process(dry.data(), 0.8f, 0.35f, out.data());
    }
    std::printf("last sample %.5f\n", out.back());
    return 0;
}
