// case: A radar spectrum pipeline uploads the raw signal from a std::vector with cudaMemcpyAsync (pageable, 8 MiB) and scans the pinned magnitude buffer for peaks right after the async download, before cudaStreamSynchronize.
// expect: pageable_async_copy=1, missing_sync=1
#include <cuda_runtime.h>
#include <cuComplex.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>

#define CU(x) do { cudaError_t s_ = (x); if (s_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(s_)); exit(1); } } while (0)

// Naive DFT over short windows: each block handles one window, each thread one bin.
__global__ void windowed_dft(const float2* __restrict__ in, float* __restrict__ mag, int win) {
    int w = blockIdx.x, k = threadIdx.x;
    if (k >= win) return;
    const float2* x = in + size_t(w) * win;
    float re = 0.f, im = 0.f;
    for (int t = 0; t < win; ++t) {
        float wnd = 0.5f - 0.5f * __cosf(6.2831853f * t / (win - 1));
        float s, c;
        __sincosf(-6.2831853f * k * t / win, &s, &c);
        re += wnd * (x[t].x * c - x[t].y * s);
        im += wnd * (x[t].x * s + x[t].y * c);
    }
    mag[size_t(w) * win + k] = sqrtf(re * re + im * im);
}

struct Peak { int window, bin; float power; };

static std::vector<Peak> find_peaks(const float* mag, int windows, int win, float thresh) {
    std::vector<Peak> peaks;
    for (int w = 0; w < windows; ++w)
        for (int k = 1; k < win - 1; ++k) {
            float v = mag[size_t(w) * win + k];
            if (v > thresh && v > mag[size_t(w) * win + k - 1] && v > mag[size_t(w) * win + k + 1])
                peaks.push_back({w, k, v});
        }
    return peaks;
}

int main() {
    const int win = 256, windows = 4096;
    const size_t n = size_t(win) * windows;

    std::vector<float2> signal(n);
    for (size_t i = 0; i < n; ++i) {
        float t = float(i) / win;
        signal[i] = make_float2(std::cos(2.f * 3.14159f * 37.f * t), std::sin(2.f * 3.14159f * 37.f * t));
    }

    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float2* d_sig;
    float *d_mag, *h_mag;
    CU(cudaMalloc(&d_sig, n * sizeof(float2)));
    CU(cudaMalloc(&d_mag, n * sizeof(float)));
    CU(cudaMallocHost(&h_mag, n * sizeof(float)));

    CU(cudaMemcpyAsync(d_sig, signal.data(), n * sizeof(float2), cudaMemcpyHostToDevice, stream));
    windowed_dft<<<windows, win, 0, stream>>>(d_sig, d_mag, win);
    CU(cudaMemcpyAsync(h_mag, d_mag, n * sizeof(float), cudaMemcpyDeviceToHost, stream));

    std::vector<Peak> peaks = find_peaks(h_mag, windows, win, 50.f);
    CU(cudaStreamSynchronize(stream));

    printf("%zu peaks\n", peaks.size());
    if (!peaks.empty()) printf("first: window %d bin %d power %.1f\n", peaks[0].window, peaks[0].bin, peaks[0].power);

    CU(cudaFreeHost(h_mag));
    CU(cudaFree(d_mag));
    CU(cudaFree(d_sig));
    CU(cudaStreamDestroy(stream));
    return 0;
}
