// Two-layer MLP scorer served from a CUDA graph: each request is copied into a pinned
// staging buffer, the recorded forward pass is replayed, and the scores come back through a
// pinned output buffer.
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "layers.h"

constexpr int kBatch = 64;
constexpr int kInput = 512;
constexpr int kHidden = 2048;
constexpr int kOutput = 128;

static void make_request(int id, float* dst) {
    for (int i = 0; i < kBatch * kInput; ++i) dst[i] = 0.001f * ((i * 31 + id * 17) % 997);
}

int main() {
    Dense fc1(kInput, kHidden, 1234u);
    Dense fc2(kHidden, kOutput, 5678u);
    CUDA_CHECK(cudaDeviceSynchronize());  // weight uploads done before the stream uses them

    const size_t in_bytes = sizeof(float) * kBatch * kInput;
    const size_t hid_bytes = sizeof(float) * kBatch * kHidden;
    const size_t out_bytes = sizeof(float) * kBatch * kOutput;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float *h_in, *h_out, *d_in, *d_hidden, *d_out;
    CUDA_CHECK(cudaMallocHost(&h_in, in_bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, out_bytes));
    CUDA_CHECK(cudaMalloc(&d_in, in_bytes));
    CUDA_CHECK(cudaMalloc(&d_hidden, hid_bytes));
    CUDA_CHECK(cudaMalloc(&d_out, out_bytes));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, in_bytes, cudaMemcpyHostToDevice, stream));
    fc1.forward(d_in, d_hidden, kBatch, stream);
    fc2.forward(d_hidden, d_out, kBatch, stream);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    std::vector<float> best(kBatch);
    for (int request = 0; request < 100; ++request) {
        make_request(request, h_in);
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int b = 0; b < kBatch; ++b) {
            float m = h_out[b * kOutput];
            for (int o = 1; o < kOutput; ++o) m = std::fmax(m, h_out[b * kOutput + o]);
            best[b] = m;
        }
        if (request % 25 == 0) std::printf("request %d: best[0] = %.4f\n", request, best[0]);
    }

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_hidden));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
