// case: inference-engine plugin layer (dequantize) whose debug dump arm copies its output into a std::vector with cudaMemcpyAsync and reads it unsynchronized, and whose host scale table is malloc'd under another option; neither PLUGIN_DEBUG_DUMP nor PLUGIN_HOST_MALLOC is defined, so the default build uses pinned memory only: near-miss
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

// #define PLUGIN_DEBUG_DUMP
// #define PLUGIN_HOST_MALLOC
#define PLUGIN_MAX_CHANNELS 4096

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            return -1;                                                         \
        }                                                                      \
    } while (0)

__global__ void dequant_int8(const int8_t* in, const float* scales, float* out, int channels, int per_channel) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < (size_t)channels * per_channel) out[i] = in[i] * scales[i / per_channel];
}

class IPluginLayer {
public:
    virtual ~IPluginLayer() = default;
    virtual int configure(int channels, int per_channel) = 0;
    virtual int enqueue(const void* const* inputs, void* const* outputs, cudaStream_t stream) = 0;
};

class DequantPlugin final : public IPluginLayer {
public:
    ~DequantPlugin() override { terminate(); }

    int configure(int channels, int per_channel) override {
        if (channels > PLUGIN_MAX_CHANNELS) return -1;
        channels_ = channels;
        per_channel_ = per_channel;
#ifdef PLUGIN_HOST_MALLOC
        h_scales_ = static_cast<float*>(std::malloc(PLUGIN_MAX_CHANNELS * sizeof(float)));
#else
        CUDA_CHECK(cudaMallocHost(&h_scales_, PLUGIN_MAX_CHANNELS * sizeof(float)));
#endif
        for (int c = 0; c < channels_; ++c) h_scales_[c] = 1.0f / (1 + c % 7);
        CUDA_CHECK(cudaMalloc(&d_scales_, PLUGIN_MAX_CHANNELS * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(d_scales_, h_scales_, channels_ * sizeof(float), cudaMemcpyHostToDevice));
        return 0;
    }

    int enqueue(const void* const* inputs, void* const* outputs, cudaStream_t stream) override {
        const int8_t* in = static_cast<const int8_t*>(inputs[0]);
        float* out = static_cast<float*>(outputs[0]);
        const size_t total = (size_t)channels_ * per_channel_;
        CUDA_CHECK(cudaMemcpyAsync(d_scales_, h_scales_, channels_ * sizeof(float), cudaMemcpyHostToDevice, stream));
        dequant_int8<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(in, d_scales_, out, channels_, per_channel_);
#ifdef PLUGIN_DEBUG_DUMP
        std::vector<float> dump(total);
        cudaMemcpyAsync(dump.data(), out, total * sizeof(float), cudaMemcpyDeviceToHost, stream);
        std::printf("dequant[0] = %f\n", dump[0]);
#endif
        return cudaGetLastError() == cudaSuccess ? 0 : -1;
    }

    int terminate() {
        if (h_scales_) {
            cudaDeviceSynchronize();
#ifdef PLUGIN_HOST_MALLOC
            std::free(h_scales_);
#else
            cudaFreeHost(h_scales_);
#endif
            h_scales_ = nullptr;
        }
        if (d_scales_) { cudaFree(d_scales_); d_scales_ = nullptr; }
        return 0;
    }

private:
    int channels_ = 0, per_channel_ = 0;
    float* h_scales_ = nullptr;
    float* d_scales_ = nullptr;
};

int main() {
    const int channels = 1024, per_channel = 4096;
    int8_t* d_in = nullptr;
    float* d_out = nullptr;
    float* h_out = nullptr;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMalloc(&d_in, (size_t)channels * per_channel);
    cudaMalloc(&d_out, (size_t)channels * per_channel * sizeof(float));
    cudaMallocHost(&h_out, per_channel * sizeof(float));
    cudaMemsetAsync(d_in, 1, (size_t)channels * per_channel, s);

    DequantPlugin plugin;
    if (plugin.configure(channels, per_channel) != 0) return 1;
    const void* ins[] = {d_in};
    void* outs[] = {d_out};
    if (plugin.enqueue(ins, outs, s) != 0) return 1;
    cudaMemcpyAsync(h_out, d_out, per_channel * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    std::printf("out[0] = %f\n", h_out[0]);

    plugin.terminate();
    cudaFreeHost(h_out);
    cudaFree(d_out);
    cudaFree(d_in);
    cudaStreamDestroy(s);
    return 0;
}
