// case: a spectrum analyser uploads each block of samples from a std::vector with cudaMemcpyAsync and reads the power spectrum back into write-combined pinned memory, which the host then scans for the peak bin
// expect: pageable_async_copy=1, write_combined_host_read=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK_CUDA(e)                                                                  \
    do {                                                                               \
        if ((e) != cudaSuccess) {                                                      \
            std::fprintf(stderr, "CUDA failure at %s:%d\n", __FILE__, __LINE__);       \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

using sample_t = float2;
constexpr int kFftLen = 4096;
constexpr int kBlocksPerChunk = 64;

// Naive per-bin DFT over a window: one thread per (block, bin).
__global__ void power_spectrum(const sample_t* x, float* power, int n_blocks) {
    int bin = blockIdx.x * blockDim.x + threadIdx.x;
    int blk = blockIdx.y;
    if (bin >= kFftLen || blk >= n_blocks) return;
    const sample_t* in = x + (size_t)blk * kFftLen;
    float re = 0.f, im = 0.f;
    for (int t = 0; t < kFftLen; ++t) {
        float s, c;
        sincospif(-2.f * bin * t / kFftLen, &s, &c);
        re += in[t].x * c - in[t].y * s;
        im += in[t].x * s + in[t].y * c;
    }
    power[(size_t)blk * kFftLen + bin] = re * re + im * im;
}

int main() {
    const size_t n_samples = (size_t)kFftLen * kBlocksPerChunk;
    std::vector<sample_t> iq(n_samples);
    for (size_t i = 0; i < n_samples; ++i) {
        float ph = 2.f * 3.14159265f * 0.125f * (float)i;
        iq[i] = make_float2(std::cos(ph), std::sin(ph));
    }

    sample_t* d_iq = nullptr;
    float* d_power = nullptr;
    float* h_power = nullptr;
    CHECK_CUDA(cudaMalloc(&d_iq, n_samples * sizeof(sample_t)));
    CHECK_CUDA(cudaMalloc(&d_power, n_samples * sizeof(float)));
    // "fast transfers": write-combined pinned memory for the readback
    CHECK_CUDA(cudaHostAlloc(&h_power, n_samples * sizeof(float), cudaHostAllocWriteCombined));

    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMemcpyAsync(d_iq, iq.data(), iq.size() * sizeof(sample_t), cudaMemcpyHostToDevice, stream)); // EXPECT: pageable_async_copy
    dim3 grid(kFftLen / 256, kBlocksPerChunk);
    power_spectrum<<<grid, 256, 0, stream>>>(d_iq, d_power, kBlocksPerChunk);
    CHECK_CUDA(cudaMemcpyAsync(h_power, d_power, n_samples * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));

    // average the blocks and find the strongest bin
    int peak = 0;
    float best = -1.f;
    for (int bin = 0; bin < kFftLen; ++bin) {
        float acc = 0.f;
        for (int b = 0; b < kBlocksPerChunk; ++b) acc += h_power[(size_t)b * kFftLen + bin]; // EXPECT: write_combined_host_read
        if (acc > best) { best = acc; peak = bin; }
    }
    std::printf("peak bin %d (%.1f)\n", peak, best / kBlocksPerChunk);

    cudaStreamDestroy(stream);
    cudaFreeHost(h_power);
    cudaFree(d_power);
    cudaFree(d_iq);
    return 0;
}
