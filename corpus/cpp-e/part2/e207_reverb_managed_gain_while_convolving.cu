// case: an audio convolution reverb launches the convolution kernel (which touches only cudaMalloc buffers) and, while it runs, the host writes the per-channel wet gains into a globally attached managed array that the kernel does not use.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <memory>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::abort(); } } while (0)

constexpr int kChannels = 2;
constexpr int kBlock = 4096;
constexpr int kIrLen = 2048;

__global__ void convolve(const float* dry, const float* ir, float* wet, int block, int ir_len) {
    int ch = blockIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= block) return;
    float acc = 0.f;
    for (int k = 0; k < ir_len && k <= i; ++k) acc += dry[ch * block + i - k] * ir[ch * ir_len + k];
    wet[ch * block + i] = acc;
}

__global__ void mix(const float* dry, const float* wet, const float* gains, float* out, int block) {
    int ch = blockIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < block) out[ch * block + i] = dry[ch * block + i] + gains[ch] * wet[ch * block + i];
}

struct CudaFree { void operator()(void* p) const { cudaFree(p); } };
template <typename T> using DeviceBuf = std::unique_ptr<T[], CudaFree>;

template <typename T> DeviceBuf<T> make_device(size_t n) {
    T* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    return DeviceBuf<T>(p);
}

class Reverb {
public:
    Reverb()
        : dry_(make_device<float>(kChannels * kBlock)), ir_(make_device<float>(kChannels * kIrLen)),
          wet_(make_device<float>(kChannels * kBlock)), out_(make_device<float>(kChannels * kBlock)) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocManaged(&gains_, kChannels * sizeof(float)));   // cudaMemAttachGlobal
        CUDA_CHECK(cudaMemsetAsync(dry_.get(), 0, kChannels * kBlock * sizeof(float), stream_));
        CUDA_CHECK(cudaMemsetAsync(ir_.get(), 0, kChannels * kIrLen * sizeof(float), stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (int c = 0; c < kChannels; ++c) gains_[c] = 0.5f;
    }
    ~Reverb() {
        cudaStreamSynchronize(stream_);
        cudaFree(gains_);
        cudaStreamDestroy(stream_);
    }

    void process(float room_size) {
        dim3 grid((kBlock + 255) / 256, kChannels);
        convolve<<<grid, 256, 0, stream_>>>(dry_.get(), ir_.get(), wet_.get(), kBlock, kIrLen);
        // overlap the gain automation with the convolution...
        for (int c = 0; c < kChannels; ++c)
            gains_[c] = 0.3f + 0.4f * std::tanh(room_size * float(c + 1)); // EXPECT: managed_concurrent_access
        mix<<<grid, 256, 0, stream_>>>(dry_.get(), wet_.get(), gains_, out_.get(), kBlock);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    cudaStream_t stream_{};
    DeviceBuf<float> dry_, ir_, wet_, out_;
    float* gains_ = nullptr;
};

int main() {
    Reverb reverb;
    for (int b = 0; b < 16; ++b) reverb.process(0.05f * b);
    std::puts("processed 16 blocks");
    return 0;
}
