// case: texture streaming: with USE_WC_UPLOAD defined to 1 in the file, the upload staging buffer is cudaHostAllocWriteCombined and the host only writes it (convert-and-store), while the readback of mip statistics lands in plain cudaMallocHost memory that the host reads after synchronizing
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define USE_WC_UPLOAD 1

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void mip_mean(const uint16_t* texels, int texels_per_mip, int mips, float* means) {
    int m = blockIdx.x;
    if (m >= mips) return;
    __shared__ float partial[256];
    float acc = 0.0f;
    for (int i = threadIdx.x; i < texels_per_mip; i += blockDim.x) acc += texels[m * texels_per_mip + i];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) means[m] = partial[0] / texels_per_mip;
}

class TextureStreamer {
public:
    TextureStreamer(int texels_per_mip, int mips) : per_mip_(texels_per_mip), mips_(mips) {
        size_t bytes = static_cast<size_t>(per_mip_) * mips_ * sizeof(uint16_t);
#if USE_WC_UPLOAD
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&staging_), bytes, cudaHostAllocWriteCombined));
#else
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&staging_), bytes, cudaHostAllocDefault));
#endif
        CUDA_CHECK(cudaMallocHost(&h_means_, mips_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_texels_, bytes));
        CUDA_CHECK(cudaMalloc(&d_means_, mips_ * sizeof(float)));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    }
    ~TextureStreamer() {
        cudaStreamSynchronize(stream_);
        cudaStreamDestroy(stream_);
        cudaFree(d_means_);
        cudaFree(d_texels_);
        cudaFreeHost(h_means_);
        cudaFreeHost(staging_);
    }

    float upload(const std::vector<float>& linear) {
        size_t count = static_cast<size_t>(per_mip_) * mips_;
        for (size_t i = 0; i < count; ++i) staging_[i] = static_cast<uint16_t>(linear[i % linear.size()] * 65535.0f);
        CUDA_CHECK(cudaMemcpyAsync(d_texels_, staging_, count * sizeof(uint16_t), cudaMemcpyHostToDevice, stream_));
        mip_mean<<<mips_, 256, 0, stream_>>>(d_texels_, per_mip_, mips_, d_means_);
        CUDA_CHECK(cudaMemcpyAsync(h_means_, d_means_, mips_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        float brightest = 0.0f;
        for (int m = 0; m < mips_; ++m) brightest = h_means_[m] > brightest ? h_means_[m] : brightest;
        return brightest;
    }

private:
    int per_mip_, mips_;
    uint16_t* staging_ = nullptr;
    float* h_means_ = nullptr;
    uint16_t* d_texels_ = nullptr;
    float* d_means_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

int main() {
    TextureStreamer streamer(1 << 16, 64);
    std::vector<float> ramp(4096);
    for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i) / ramp.size();
    std::printf("brightest mip mean %f\n", streamer.upload(ramp));
    return 0;
}
