// case: FIR filter bank loads taps with cudaMemcpyToSymbol, zeroes a __device__ clip counter through cudaGetSymbolAddress (never freed, correctly), and reads the output with cudaMemcpy and cudaMemcpyDefault into a std::vector after kernels on the legacy default stream.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cmath>
#include <vector>

#ifndef FIR_TAPS
#define FIR_TAPS 63
#endif

__constant__ float c_taps[FIR_TAPS];
__device__ unsigned int g_clipped;

__global__ void fir(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int t = 0; t < FIR_TAPS; ++t) {
        int j = i - t;
        if (j >= 0) acc += c_taps[t] * in[j];
    }
    if (fabsf(acc) > 1.0f) { atomicAdd(&g_clipped, 1u); acc = copysignf(1.0f, acc); }
    out[i] = acc;
}

class FirBank {
public:
    explicit FirBank(int n) : n_(n) {
        cudaMalloc(&d_in_, n_ * sizeof(float));
        cudaMalloc(&d_out_, n_ * sizeof(float));
        cudaGetSymbolAddress(reinterpret_cast<void**>(&d_clipped_), g_clipped);
    }
    ~FirBank() {
        cudaFree(d_in_);
        cudaFree(d_out_);
        // d_clipped_ is a module global, not an allocation: nothing to free
    }

    void set_lowpass(float cutoff) {
        float taps[FIR_TAPS];
        float sum = 0.f;
        for (int t = 0; t < FIR_TAPS; ++t) {
            float m = t - (FIR_TAPS - 1) / 2.0f;
            float sinc = m == 0.f ? 2.f * cutoff : sinf(2.f * 3.14159265f * cutoff * m) / (3.14159265f * m);
            float hamming = 0.54f - 0.46f * cosf(2.f * 3.14159265f * t / (FIR_TAPS - 1));
            taps[t] = sinc * hamming;
            sum += taps[t];
        }
        for (float& t : taps) t /= sum;
        cudaMemcpyToSymbol(c_taps, taps, sizeof(taps));
    }

    unsigned filter(const std::vector<float>& signal, std::vector<float>& out) {
        cudaMemset(d_clipped_, 0, sizeof(unsigned));
        cudaMemcpy(d_in_, signal.data(), n_ * sizeof(float), cudaMemcpyDefault);
        fir<<<(n_ + 255) / 256, 256>>>(d_in_, d_out_, n_);
        out.resize(n_);
        cudaMemcpy(out.data(), d_out_, n_ * sizeof(float), cudaMemcpyDefault);
        unsigned clipped = 0;
        cudaMemcpyFromSymbol(&clipped, g_clipped, sizeof(clipped));
        return clipped;
    }

private:
    int n_;
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
    unsigned* d_clipped_ = nullptr;
};

int main() {
    const int n = 1 << 20;
    std::vector<float> sig(n), out;
    for (int i = 0; i < n; ++i) sig[i] = 0.8f * sinf(0.01f * i) + 0.3f * sinf(1.3f * i);
    FirBank bank(n);
    bank.set_lowpass(0.05f);
    unsigned clipped = bank.filter(sig, out);
    double energy = 0;
    for (float v : out) energy += double(v) * v;
    printf("clipped %u samples, energy %.3f\n", clipped, energy);
    return 0;
}
