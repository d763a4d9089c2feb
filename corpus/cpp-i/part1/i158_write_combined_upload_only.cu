// case: a texture streamer fills write-combined pinned buffers from the host and only uploads from them; the readback goes to ordinary pinned memory from cudaMallocHost, which the host reads
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void downsample2x(const uint32_t* src, int w, int h, uint32_t* dst) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w / 2 || y >= h / 2) return;
    uint32_t a = src[(2 * y) * w + 2 * x], b = src[(2 * y) * w + 2 * x + 1];
    uint32_t c = src[(2 * y + 1) * w + 2 * x], d = src[(2 * y + 1) * w + 2 * x + 1];
    uint32_t out = 0;
    for (int sh = 0; sh < 32; sh += 8) {
        uint32_t s = ((a >> sh) & 255) + ((b >> sh) & 255) + ((c >> sh) & 255) + ((d >> sh) & 255);
        out |= ((s / 4) & 255) << sh;
    }
    dst[y * (w / 2) + x] = out;
}

class TextureStreamer {
public:
    TextureStreamer(int w, int h) : w_(w), h_(h) {
        const size_t full = (size_t)w_ * h_ * sizeof(uint32_t);
        CUDA_CHECK(cudaHostAlloc(&upload_, full, cudaHostAllocWriteCombined));
        CUDA_CHECK(cudaMallocHost(&readback_, full / 4));
        CUDA_CHECK(cudaMalloc(&d_full_, full));
        CUDA_CHECK(cudaMalloc(&d_half_, full / 4));
        CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
    }
    ~TextureStreamer() {
        cudaStreamSynchronize(s_);
        cudaStreamDestroy(s_);
        cudaFree(d_half_);
        cudaFree(d_full_);
        cudaFreeHost(readback_);
        cudaFreeHost(upload_);
    }
    void stream_mip(uint32_t seed) {
        const size_t n = (size_t)w_ * h_;
        for (size_t i = 0; i < n; ++i) upload_[i] = (uint32_t)(i * 2654435761u) ^ seed;
        CUDA_CHECK(cudaMemcpyAsync(d_full_, upload_, n * sizeof(uint32_t), cudaMemcpyHostToDevice, s_));
        dim3 block(16, 16), grid((w_ / 2 + 15) / 16, (h_ / 2 + 15) / 16);
        downsample2x<<<grid, block, 0, s_>>>(d_full_, w_, h_, d_half_);
        CUDA_CHECK(cudaMemcpyAsync(readback_, d_half_, n, cudaMemcpyDeviceToHost, s_));
        CUDA_CHECK(cudaStreamSynchronize(s_));
    }
    uint32_t texel(int i) const { return readback_[i]; }

private:
    int w_, h_;
    uint32_t* upload_ = nullptr;
    uint32_t* readback_ = nullptr;
    uint32_t* d_full_ = nullptr;
    uint32_t* d_half_ = nullptr;
    cudaStream_t s_ = nullptr;
};

int main() {
    TextureStreamer ts(4096, 4096);
    ts.stream_mip(0xdeadbeefu);
    printf("texel 0 of mip 1: %08x\n", ts.texel(0));
    return 0;
}
