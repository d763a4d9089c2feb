// Receiver loop: blocks of baseband samples are uploaded from pinned memory, low-pass
// filtered by the FIR graph, and the filtered block comes back for demodulation.
#include <cmath>
#include <cstdio>

#include "cuda_util.h"
#include "fir_graph.h"

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

    cudaGraphExec_t fir = build_fir_graph(stream, d_x, d_taps, d_y, block_len, 0.1f);

    double energy = 0.0;
    for (int blk = 0; blk < 256; ++blk) {
        for (int i = 0; i < block_len; ++i) {
            float t = static_cast<float>(blk * block_len + i);
            h_in[i] = std::sin(0.01f * t) + 0.3f * std::sin(2.5f * t);  // wanted tone + interferer
        }
        CUDA_CHECK(cudaMemcpyAsync(d_x, h_in, bytes, cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaGraphLaunch(fir, stream));  // EXPECT: graph_uses_freed_memory
        CUDA_CHECK(cudaMemcpyAsync(h_out, d_y, bytes, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int i = 0; i < block_len; ++i) energy += h_out[i] * h_out[i];
    }
    std::printf("mean output power %.5f\n", energy / (256.0 * block_len));

    CUDA_CHECK(cudaGraphExecDestroy(fir));
    CUDA_CHECK(cudaFree(d_taps));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
