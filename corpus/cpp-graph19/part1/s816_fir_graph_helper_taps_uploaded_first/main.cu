// Channelizer loop: each block of samples is uploaded from pinned memory, band-pass filtered
// by the graph, and brought back for the detector. The stream is a blocking one, so it is
// ordered after the helper's blocking tap upload.
#include <cmath>
#include <cstdio>

#include "bandpass_graph.h"
#include "cuda_util.h"

int main() {
    const int block_len = 1 << 16;
    const size_t bytes = block_len * sizeof(float);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    float *h_in, *h_out, *d_x, *d_y, *d_taps;
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_taps, kTaps * sizeof(float)));

    cudaGraphExec_t channel = build_bandpass_graph(stream, d_x, d_taps, d_y, block_len, 0.05f, 0.15f);

    int detections = 0;
    for (int blk = 0; blk < 256; ++blk) {
        for (int i = 0; i < block_len; ++i) {
            float t = static_cast<float>(blk * block_len + i);
            h_in[i] = (blk % 8 == 3 ? std::sin(0.6f * t) : 0.0f) + 0.05f * std::sin(2.9f * t);
        }
        CUDA_CHECK(cudaMemcpyAsync(d_x, h_in, bytes, cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaGraphLaunch(channel, stream));
        CUDA_CHECK(cudaMemcpyAsync(h_out, d_y, bytes, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        double power = 0.0;
        for (int i = 0; i < block_len; ++i) power += h_out[i] * h_out[i];
        if (power / block_len > 0.1) ++detections;
    }
    std::printf("%d blocks with a carrier in band\n", detections);

    CUDA_CHECK(cudaGraphExecDestroy(channel));
    CUDA_CHECK(cudaFree(d_taps));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
