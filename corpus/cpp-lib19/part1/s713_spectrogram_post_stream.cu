// Short-time Fourier transform of a mono recording: Hann-windowed, 50%-overlapping frames,
// one batched real-to-complex FFT, then log-magnitude on a separate post-processing stream so
// that the download can overlap with the next file's decode.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cufft.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUFFT_CHECK(call)                                                         \
    do {                                                                          \
        cufftResult r_ = (call);                                                  \
        if (r_ != CUFFT_SUCCESS) {                                                \
            std::fprintf(stderr, "%s:%d: cuFFT error %d\n", __FILE__, __LINE__,   \
                         static_cast<int>(r_));                                   \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

constexpr int kFrame = 1024;
constexpr int kHop = kFrame / 2;
constexpr int kBins = kFrame / 2 + 1;

__global__ void frame_and_window(const float* __restrict__ pcm, float* __restrict__ frames,
                                 int frames_count) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int f = blockIdx.y;
    if (t >= kFrame || f >= frames_count) return;
    const float w = 0.5f - 0.5f * cosf(6.28318530718f * t / (kFrame - 1));
    frames[static_cast<size_t>(f) * kFrame + t] = w * pcm[static_cast<size_t>(f) * kHop + t];
}

__global__ void log_magnitude(const cufftComplex* __restrict__ spec, float* __restrict__ out, size_t n) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        const float re = spec[i].x, im = spec[i].y;
        out[i] = 10.0f * log10f(re * re + im * im + 1e-12f);
    }
}

int main(int argc, char** argv) {
    const int seconds = argc > 1 ? std::atoi(argv[1]) : 30;
    const int rate = 48000;
    const size_t samples = static_cast<size_t>(seconds) * rate;
    const int frames = static_cast<int>((samples - kFrame) / kHop + 1);
    const size_t frame_elems = static_cast<size_t>(frames) * kFrame;
    const size_t bin_elems = static_cast<size_t>(frames) * kBins;

    std::vector<float> pcm(samples);
    for (size_t i = 0; i < samples; ++i)
        pcm[i] = 0.6f * std::sin(2.0f * 3.14159265f * 440.0f * i / rate) + 0.2f * std::sin(0.37f * i);

    cudaStream_t post;
    CUDA_CHECK(cudaStreamCreateWithFlags(&post, cudaStreamNonBlocking));

    int n[1] = {kFrame};
    cufftHandle plan;
    CUFFT_CHECK(cufftPlanMany(&plan, 1, n, nullptr, 1, kFrame, nullptr, 1, kBins, CUFFT_R2C, frames));

    float *d_pcm, *d_frames, *d_db;
    cufftComplex* d_spec;
    CUDA_CHECK(cudaMalloc(&d_pcm, samples * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_frames, frame_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_spec, bin_elems * sizeof(cufftComplex)));
    CUDA_CHECK(cudaMalloc(&d_db, bin_elems * sizeof(float)));
    float* h_db = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_db, bin_elems * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_pcm, pcm.data(), samples * sizeof(float), cudaMemcpyHostToDevice));
    const dim3 wblock(256), wgrid((kFrame + 255) / 256, frames);
    frame_and_window<<<wgrid, wblock>>>(d_pcm, d_frames, frames);
    CUDA_CHECK(cudaGetLastError());
    CUFFT_CHECK(cufftExecR2C(plan, d_frames, d_spec));

    const int threads = 256;
    const unsigned blocks = static_cast<unsigned>((bin_elems + threads - 1) / threads);
    log_magnitude<<<blocks, threads, 0, post>>>(d_spec, d_db, bin_elems);  // EXPECT: missing_sync
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_db, d_db, bin_elems * sizeof(float), cudaMemcpyDeviceToHost, post));
    CUDA_CHECK(cudaStreamSynchronize(post));

    // Strongest bin of the middle frame.
    const size_t mid = static_cast<size_t>(frames / 2) * kBins;
    int peak = 0;
    for (int b = 1; b < kBins; ++b)
        if (h_db[mid + b] > h_db[mid + peak]) peak = b;
    std::printf("%d frames, middle frame peaks at %.1f Hz (%.1f dB)\n",
                frames, static_cast<float>(peak) * rate / kFrame, h_db[mid + peak]);

    CUDA_CHECK(cudaDeviceSynchronize());
    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaFreeHost(h_db));
    CUDA_CHECK(cudaFree(d_db));
    CUDA_CHECK(cudaFree(d_spec));
    CUDA_CHECK(cudaFree(d_frames));
    CUDA_CHECK(cudaFree(d_pcm));
    CUDA_CHECK(cudaStreamDestroy(post));
    return 0;
}
