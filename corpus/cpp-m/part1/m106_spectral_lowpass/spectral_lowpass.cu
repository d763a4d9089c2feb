// case: A batched FFT low-pass filter (cuFFT R2C, a spectrum kernel, C2R, a scaling kernel) keeps every buffer in RAII classes from its header and reads the pinned result only after the stream is synchronized; correct.
// expect: none
#include "gpu_buffers.cuh"
#include <cmath>
#include <vector>

constexpr int kSignalLen = 1 << 16;
constexpr int kBatch = 32;
constexpr int kSpecLen = kSignalLen / 2 + 1;

__global__ void lowpass(cufftComplex* spec, int spec_len, int batch, int cutoff) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (k >= spec_len || b >= batch) return;
    // raised-cosine roll-off over 64 bins above the cutoff
    float g = 1.0f;
    if (k > cutoff) g = k > cutoff + 64 ? 0.0f : 0.5f * (1.0f + cospif((k - cutoff) / 64.0f));
    cufftComplex c = spec[size_t(b) * spec_len + k];
    c.x *= g;
    c.y *= g;
    spec[size_t(b) * spec_len + k] = c;
}

__global__ void scale(float* x, size_t n, float s) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) x[i] *= s;
}

int main() {
    const size_t n = size_t(kSignalLen) * kBatch;
    Stream stream;
    PinnedArray<float> h_signal(n), h_filtered(n);
    DeviceArray<float> d_signal(n), d_filtered(n);
    DeviceArray<cufftComplex> d_spec(size_t(kSpecLen) * kBatch);

    for (int b = 0; b < kBatch; ++b)
        for (int t = 0; t < kSignalLen; ++t)
            h_signal[size_t(b) * kSignalLen + t] =
                std::sin(0.01f * t * (b + 1)) + 0.3f * std::sin(2.9f * t);

    cufftHandle fwd, inv;
    int len = kSignalLen;
    CUFFT_CHECK(cufftPlanMany(&fwd, 1, &len, nullptr, 1, kSignalLen, nullptr, 1, kSpecLen, CUFFT_R2C, kBatch));
    CUFFT_CHECK(cufftPlanMany(&inv, 1, &len, nullptr, 1, kSpecLen, nullptr, 1, kSignalLen, CUFFT_C2R, kBatch));
    CUFFT_CHECK(cufftSetStream(fwd, stream.get()));
    CUFFT_CHECK(cufftSetStream(inv, stream.get()));

    CUDA_CHECK(cudaMemcpyAsync(d_signal.data(), h_signal.data(), h_signal.bytes(),
                               cudaMemcpyHostToDevice, stream.get()));
    CUFFT_CHECK(cufftExecR2C(fwd, d_signal.data(), d_spec.data()));
    dim3 grid((kSpecLen + 255) / 256, kBatch);
    lowpass<<<grid, 256, 0, stream.get()>>>(d_spec.data(), kSpecLen, kBatch, kSpecLen / 8);
    CUDA_CHECK(cudaGetLastError());
    CUFFT_CHECK(cufftExecC2R(inv, d_spec.data(), d_filtered.data()));
    scale<<<unsigned((n + 255) / 256), 256, 0, stream.get()>>>(d_filtered.data(), n, 1.0f / kSignalLen);
    CUDA_CHECK(cudaMemcpyAsync(h_filtered.data(), d_filtered.data(), h_filtered.bytes(),
                               cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();

    std::vector<double> energy(kBatch, 0.0);
    for (int b = 0; b < kBatch; ++b)
        for (int t = 0; t < kSignalLen; ++t) {
            double v = h_filtered[size_t(b) * kSignalLen + t];
            energy[b] += v * v;
        }
    for (int b = 0; b < kBatch; b += 8) std::printf("batch %2d energy %.2f\n", b, energy[b]);

    cufftDestroy(fwd);
    cufftDestroy(inv);
    return 0;
}
