#pragma once
#include <cuda_runtime.h>
#include <cufft.h>

// Hann window applied to every channel of a [batch][n] block.
__global__ void apply_hann(const float* __restrict__ raw, float* __restrict__ windowed, int n,
                           int batch) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * batch) return;
    const int t = k % n;
    const float w = 0.5f - 0.5f * cosf(6.28318531f * t / (n - 1));
    windowed[k] = raw[k] * w;
}

// Band-pass response with raised-cosine skirts, one row of nfreq bins.
__global__ void make_bandpass(cufftComplex* response, int nfreq, int lo, int hi, int skirt) {
    const int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= nfreq) return;
    float g = 0.0f;
    if (f >= lo && f <= hi) {
        g = 1.0f;
    } else if (f >= lo - skirt && f < lo) {
        g = 0.5f - 0.5f * cosf(3.14159265f * (f - (lo - skirt)) / skirt);
    } else if (f > hi && f <= hi + skirt) {
        g = 0.5f + 0.5f * cosf(3.14159265f * (f - hi) / skirt);
    }
    response[f].x = g;
    response[f].y = 0.0f;
}

// spec[b][f] *= response[f] for every channel b.
__global__ void apply_response(cufftComplex* __restrict__ spec,
                               const cufftComplex* __restrict__ response, int nfreq, int batch) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nfreq * batch) return;
    const cufftComplex h = response[k % nfreq];
    const cufftComplex s = spec[k];
    spec[k].x = s.x * h.x - s.y * h.y;
    spec[k].y = s.x * h.y + s.y * h.x;
}

// Band energy of every channel (cuFFT's inverse is unnormalised: scale = 1/n).
__global__ void band_energy(const float* __restrict__ filtered, float* __restrict__ energy,
                            int n, float scale) {
    __shared__ float partial[256];
    const int b = blockIdx.x;
    float acc = 0.0f;
    for (int t = threadIdx.x; t < n; t += blockDim.x) {
        const float y = filtered[b * n + t] * scale;
        acc += y * y;
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) energy[b] = partial[0] / n;
}
