// Keyword spotter: three conv blocks over a window of audio features, recorded once into a
// graph (default global capture mode) and replayed for every window of the stream.
#include <cstdio>

#include "check.h"
#include "conv_block.h"

constexpr int kChannels = 64;
constexpr int kFrames = 1024;

static void fill_window(float* features, int window) {
    for (int c = 0; c < kChannels; ++c)
        for (int t = 0; t < kFrames; ++t)
            features[c * kFrames + t] = 0.01f * ((c * 7 + t * 3 + window) % 101) - 0.5f;
}

int main() {
    ConvBlock block1(kChannels, 9);
    ConvBlock block2(kChannels, 9);
    ConvBlock block3(kChannels, 5);
    CUDA_TRY(cudaDeviceSynchronize());  // filter taps uploaded before the stream reads them
    const size_t bytes = sizeof(float) * kChannels * kFrames;

    cudaStream_t stream;
    CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float *h_feat, *h_out, *d_a, *d_b;
    CUDA_TRY(cudaMallocHost(&h_feat, bytes));
    CUDA_TRY(cudaMallocHost(&h_out, bytes));
    CUDA_TRY(cudaMalloc(&d_a, bytes));
    CUDA_TRY(cudaMalloc(&d_b, bytes));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_TRY(cudaMemcpyAsync(d_a, h_feat, bytes, cudaMemcpyHostToDevice, stream));
    block1.forward(d_a, d_b, kFrames, stream);
    block2.forward(d_b, d_a, kFrames, stream);
    block3.forward(d_a, d_b, kFrames, stream);
    CUDA_TRY(cudaMemcpyAsync(h_out, d_b, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_TRY(cudaStreamEndCapture(stream, &graph));
    CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_TRY(cudaGraphDestroy(graph));

    int detections = 0;
    for (int window = 0; window < 200; ++window) {
        fill_window(h_feat, window);
        CUDA_TRY(cudaGraphLaunch(exec, stream));
        CUDA_TRY(cudaStreamSynchronize(stream));
        float energy = 0.0f;
        for (int t = 0; t < kFrames; ++t) energy += h_out[t] * h_out[t];
        if (energy / kFrames > 1.5f) ++detections;
    }
    std::printf("%d windows above threshold\n", detections);

    CUDA_TRY(cudaGraphExecDestroy(exec));
    CUDA_TRY(cudaFree(d_b));
    CUDA_TRY(cudaFree(d_a));
    CUDA_TRY(cudaFreeHost(h_out));
    CUDA_TRY(cudaFreeHost(h_feat));
    CUDA_TRY(cudaStreamDestroy(stream));
    return 0;
}
