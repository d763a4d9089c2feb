// case: Audio mixdown renders 64 tracks on the GPU and reads the stereo result back into a cudaHostAllocWriteCombined buffer, then scans it on the host for the peak level (an uncached host read); the write-combined input staging buffer is only written.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cmath>
#include <algorithm>

#define CUDA_OK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)

constexpr int kTracks = 64;
constexpr int kFrames = 48000 * 10;   // ten seconds at 48 kHz

__global__ void mixdown(const float* tracks, const float* gains, float2* out, int frames)
{
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= frames) return;
    float l = 0.f, r = 0.f;
    for (int t = 0; t < kTracks; ++t) {
        float s = tracks[(size_t)t * frames + f] * gains[t];
        float pan = (float)t / (kTracks - 1);
        l += s * (1.f - pan);
        r += s * pan;
    }
    out[f] = make_float2(tanhf(l), tanhf(r));
}

int main()
{
    const size_t track_bytes = (size_t)kTracks * kFrames * sizeof(float);
    const size_t out_bytes = (size_t)kFrames * sizeof(float2);
    float* h_tracks;          // staging for upload: write-combined is the right choice here
    float2* h_mix;            // readback: write-combined is the wrong choice here
    float gains[kTracks];
    CUDA_OK(cudaHostAlloc(&h_tracks, track_bytes, cudaHostAllocWriteCombined));
    CUDA_OK(cudaHostAlloc(&h_mix, out_bytes, cudaHostAllocWriteCombined));

    for (int t = 0; t < kTracks; ++t) {
        gains[t] = 0.5f / std::sqrt((float)(t + 1));
        for (int f = 0; f < kFrames; ++f)
            h_tracks[(size_t)t * kFrames + f] = std::sin(0.01f * f * (t + 1));
    }

    float *d_tracks, *d_gains;
    float2* d_mix;
    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    CUDA_OK(cudaMalloc(&d_tracks, track_bytes));
    CUDA_OK(cudaMalloc(&d_gains, sizeof(gains)));
    CUDA_OK(cudaMalloc(&d_mix, out_bytes));

    CUDA_OK(cudaMemcpyAsync(d_tracks, h_tracks, track_bytes, cudaMemcpyHostToDevice, s));
    CUDA_OK(cudaMemcpyAsync(d_gains, gains, sizeof(gains), cudaMemcpyHostToDevice, s));
    mixdown<<<(kFrames + 255) / 256, 256, 0, s>>>(d_tracks, d_gains, d_mix, kFrames);
    CUDA_OK(cudaMemcpyAsync(h_mix, d_mix, out_bytes, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));

    float peak = 0.f;
    for (int f = 0; f < kFrames; ++f)
        peak = std::max(peak, std::max(std::fabs(h_mix[f].x), std::fabs(h_mix[f].y)));
    std::printf("peak %.2f dBFS\n", 20.f * std::log10(peak + 1e-9f));

    cudaFree(d_mix);
    cudaFree(d_gains);
    cudaFree(d_tracks);
    cudaFreeHost(h_mix);
    cudaFreeHost(h_tracks);
    cudaStreamDestroy(s);
    return 0;
}
