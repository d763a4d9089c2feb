// case: FIR filter over a std::vector signal that is page-locked in place by an RAII HostPin (cudaHostRegister/cudaHostUnregister) for the duration of the async copies; a StreamJoin declared after the pins is destroyed first, so the stream is synchronized before the memory is unregistered and before the host reads the output: correct.
// expect: none
#include "host_pin.h"
#include <cmath>
#include <vector>

constexpr int kTaps = 31;

struct Taps {
    float c[kTaps];
};

__global__ void fir(const float* in, float* out, size_t n, Taps taps)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int k = 0; k < kTaps; ++k)
        if (i >= (size_t)k) acc += taps.c[k] * in[i - k];
    out[i] = acc;
}

static Taps make_lowpass(float cutoff)
{
    Taps t{};
    const int m = kTaps / 2;
    float norm = 0.f;
    for (int k = 0; k < kTaps; ++k) {
        int x = k - m;
        float sinc = x == 0 ? 2.f * cutoff : sinf(6.2831853f * cutoff * x) / (3.14159265f * x);
        float hann = 0.5f - 0.5f * cosf(6.2831853f * k / (kTaps - 1));
        t.c[k] = sinc * hann;
        norm += t.c[k];
    }
    for (float& c : t.c) c /= norm;
    return t;
}

int main()
{
    const size_t n = size_t(1) << 22;
    const size_t bytes = n * sizeof(float);
    std::vector<float> signal(n), filtered(n);
    for (size_t i = 0; i < n; ++i)
        signal[i] = sinf(0.001f * i) + 0.3f * sinf(0.9f * i);

    float *d_sig = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_sig, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    {
        HostPin pin_in(signal.data(), bytes);
        HostPin pin_out(filtered.data(), bytes);
        StreamJoin join(stream); // declared last: joins before the pins unregister

        CUDA_CHECK(cudaMemcpyAsync(d_sig, signal.data(), bytes, cudaMemcpyHostToDevice, stream));
        fir<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(d_sig, d_out, n, make_lowpass(0.05f));
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(filtered.data(), d_out, bytes, cudaMemcpyDeviceToHost, stream));
    }

    double energy_in = 0.0, energy_out = 0.0;
    for (size_t i = 0; i < n; ++i) {
        energy_in += double(signal[i]) * signal[i];
        energy_out += double(filtered[i]) * filtered[i];
    }
    printf("fir: energy kept %.1f%%\n", 100.0 * energy_out / energy_in);

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_sig));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}
