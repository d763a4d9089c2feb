#pragma once
// Band-pass FIR stage of a software-defined-radio channelizer. The helper designs the taps
// in a local array and writes them to the device with a blocking copy before it records the
// graph, so the graph itself only filters; nothing in it refers to the helper's stack.
#include <cmath>

#include "cuda_util.h"

constexpr int kTaps = 95;

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

inline void design_bandpass(float* taps, int ntaps, float lo, float hi) {
    const float pi = 3.14159265f;
    for (int k = 0; k < ntaps; ++k) {
        float m = k - (ntaps - 1) / 2.0f;
        float h = m == 0.0f ? 2.0f * (hi - lo)
                            : (std::sin(2.0f * pi * hi * m) - std::sin(2.0f * pi * lo * m)) / (pi * m);
        float window = 0.42f - 0.5f * std::cos(2.0f * pi * k / (ntaps - 1)) +
                       0.08f * std::cos(4.0f * pi * k / (ntaps - 1));  // Blackman
        taps[k] = h * window;
    }
}

inline cudaGraphExec_t build_bandpass_graph(cudaStream_t stream, const float* d_x,
                                            float* d_taps, float* d_y, int n, float lo,
                                            float hi) {
    float taps[kTaps];
    design_bandpass(taps, kTaps, lo, hi);
    // Blocking upload, before the recording: the graph does not copy from `taps`.
    CUDA_CHECK(cudaMemcpy(d_taps, taps, sizeof(taps), cudaMemcpyHostToDevice));

    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    fir_filter<<<(n + 255) / 256, 256, 0, stream>>>(d_x, d_taps, d_y, n, kTaps);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));

    cudaGraphExec_t exec;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    return exec;
}
