// case: FIR filter bank page-locks its existing std::vector sample buffers with cudaHostRegister before the async copies, synchronizes the stream before reading the output and before cudaHostUnregister, so nothing is pageable or in flight.
// expect: none
#include <cuda_runtime.h>
#include <vector>
#include <cstdio>
#include <cmath>
#include <numeric>

#define CUDA_RT(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(e_)); return -1; } } while (0)

constexpr int kTaps = 127;
__constant__ float c_taps[kTaps];

__global__ void fir(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
#pragma unroll 8
    for (int k = 0; k < kTaps; ++k) {
        int j = i - k;
        acc += (j >= 0 ? x[j] : 0.f) * c_taps[k];
    }
    y[i] = acc;
}

static std::vector<float> windowed_sinc(float cutoff)
{
    std::vector<float> t(kTaps);
    const int m = kTaps / 2;
    for (int k = 0; k < kTaps; ++k) {
        float x = (float)(k - m);
        float sinc = x == 0.f ? 2.f * cutoff : std::sin(2.f * 3.14159265f * cutoff * x) / (3.14159265f * x);
        t[k] = sinc * (0.54f - 0.46f * std::cos(2.f * 3.14159265f * k / (kTaps - 1)));
    }
    return t;
}

int main()
{
    const int n = 1 << 23;
    std::vector<float> in(n), out(n);
    for (int i = 0; i < n; ++i) in[i] = std::sin(0.001f * i) + 0.3f * std::sin(0.9f * i);
    std::vector<float> taps = windowed_sinc(0.05f);

    CUDA_RT(cudaHostRegister(in.data(), n * sizeof(float), cudaHostRegisterDefault));
    CUDA_RT(cudaHostRegister(out.data(), n * sizeof(float), cudaHostRegisterDefault));
    CUDA_RT(cudaMemcpyToSymbol(c_taps, taps.data(), kTaps * sizeof(float)));

    float *d_in, *d_out;
    cudaStream_t s;
    CUDA_RT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_RT(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_RT(cudaMalloc(&d_out, n * sizeof(float)));

    CUDA_RT(cudaMemcpyAsync(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
    fir<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);
    CUDA_RT(cudaMemcpyAsync(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_RT(cudaStreamSynchronize(s));

    double energy = std::inner_product(out.begin(), out.end(), out.begin(), 0.0);
    std::printf("output energy %.3f\n", energy / n);

    CUDA_RT(cudaHostUnregister(out.data()));
    CUDA_RT(cudaHostUnregister(in.data()));
    cudaFree(d_out);
    cudaFree(d_in);
    cudaStreamDestroy(s);
    return 0;
}
