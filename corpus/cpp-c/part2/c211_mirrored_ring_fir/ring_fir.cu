// case: a multichannel FIR filter bank writes each new frame into a VMM mirrored ring through the primary mapping and, in the same kernel and without fence.proxy.alias, reads its filter window (including that frame) through the mirror mapping of the same allocation
// expect: unfenced_vmm_alias=1
#include "mirrored_ring.cuh"
#include <cstddef>
#include <cuda_runtime.h>
#include <vector>

constexpr int kTaps = 64;
__constant__ float c_taps[kTaps];

// Frame-interleaved ring: sample (frame f, channel c) lives at ring[f * n_ch + c].
// mirror[k] aliases ring[k], and mirror[-k] is ring[cap - k], so the window that
// ends at frame `pos` can be read as one span with no wrap-around test.
__global__ void fir_bank(float* ring, const float* mirror, const float* in, float* out,
                         int n_ch, size_t frames, size_t head, int n_new) {
    int ch = blockIdx.x * blockDim.x + threadIdx.x;
    if (ch >= n_ch) return;
    for (int f = 0; f < n_new; ++f) {
        size_t pos = (head + f) % frames;
        ring[pos * n_ch + ch] = in[(size_t)f * n_ch + ch];
        float acc = 0.f;
        for (int t = 0; t < kTaps; ++t)
            acc += c_taps[t] * mirror[((ptrdiff_t)pos - t) * n_ch + ch];
        out[(size_t)f * n_ch + ch] = acc;
    }
}

int main() {
    DRV(cuInit(0));
    CUdevice dev;
    DRV(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));

    const int n_ch = 256, n_new = 512;
    MirroredRing ring(0, 8u << 20);
    const size_t frames = ring.bytes() / sizeof(float) / n_ch;

    std::vector<float> taps(kTaps, 1.0f / kTaps);
    cudaMemcpyToSymbol(c_taps, taps.data(), kTaps * sizeof(float));

    const size_t chunk = (size_t)n_new * n_ch;
    float *d_in = nullptr, *d_out = nullptr, *h_out = nullptr;
    cudaMalloc(&d_in, chunk * sizeof(float));
    cudaMalloc(&d_out, chunk * sizeof(float));
    cudaMallocHost(&h_out, chunk * sizeof(float));
    cudaMemset(ring.primary<float>(), 0, ring.bytes());
    cudaMemset(d_in, 0, chunk * sizeof(float));
    cudaDeviceSynchronize();

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    size_t head = 0;
    double energy = 0.0;
    for (int blk = 0; blk < 32; ++blk) {
        fir_bank<<<1, n_ch, 0, s>>>(ring.primary<float>(), ring.mirror<float>(), d_in, d_out, n_ch, frames, head, n_new); // EXPECT: unfenced_vmm_alias
        cudaMemcpyAsync(h_out, d_out, chunk * sizeof(float), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
        for (size_t i = 0; i < chunk; ++i) energy += (double)h_out[i] * h_out[i];
        head = (head + n_new) % frames;
    }
    std::printf("output energy %.3f\n", energy);

    cudaStreamDestroy(s);
    cudaFreeHost(h_out);
    cudaFree(d_out);
    cudaFree(d_in);
    return 0;
}
