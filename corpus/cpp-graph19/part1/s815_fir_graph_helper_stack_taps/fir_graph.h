#pragma once
// Low-pass FIR stage of a software-defined-radio receiver, packaged as a reusable graph:
// the graph refreshes the filter taps on the device and then filters one block of samples.
#include <cmath>

#include "cuda_util.h"

constexpr int kTaps = 63;

__global__ void fir_filter(const float* __restrict__ x, const float* __restrict__ taps,
                           float* __restrict__ y, int n, int ntaps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < ntaps; ++k) {
        int src = i - k;
        if (src >= 0) acc += taps[k] * x[src];
    }
    y[i] = acc;
}

// Windowed-sinc (Hamming) low-pass design; cutoff is a fraction of the sample rate.
inline void design_lowpass(float* taps, int ntaps, float cutoff) {
    const float pi = 3.14159265f;
    float sum = 0.0f;
    for (int k = 0; k < ntaps; ++k) {
        float m = k - (ntaps - 1) / 2.0f;
        float sinc = m == 0.0f ? 2.0f * cutoff : std::sin(2.0f * pi * cutoff * m) / (pi * m);
        float window = 0.54f - 0.46f * std::cos(2.0f * pi * k / (ntaps - 1));
        taps[k] = sinc * window;
        sum += taps[k];
    }
    for (int k = 0; k < ntaps; ++k) taps[k] /= sum;  // unity gain at DC
}

inline cudaGraphExec_t build_fir_graph(cudaStream_t stream, const float* d_x, float* d_taps,
                                       float* d_y, int n, float cutoff) {
    float taps[kTaps];
    design_lowpass(taps, kTaps, cutoff);

    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    // Upload the taps as part of the graph so that it is self-contained.
    CUDA_CHECK(cudaMemcpyAsync(d_taps, taps, sizeof(taps), cudaMemcpyHostToDevice, stream));
    fir_filter<<<(n + 255) / 256, 256, 0, stream>>>(d_x, d_taps, d_y, n, kTaps);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));

    cudaGraphExec_t exec;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    return exec;
}
