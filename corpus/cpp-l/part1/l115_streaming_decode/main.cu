// case: a greedy decode loop (kernels and launchers in decode_kernels.cu) copies each new token into a pinned int and, when token streaming is enabled, prints it before the stream synchronize that the non-streaming path relies on, so on that path the host reads the token the async D2H copy may still be writing.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "decode_kernels.cuh"

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            return 1;                                                            \
        }                                                                        \
    } while (0)

struct DecodeOptions {
    int max_new_tokens = 64;
    int eos = 2;
    bool stream_tokens = false;
};

static void emit(int token) {
    printf("%d ", token);
    fflush(stdout);
}

int main(int argc, char** argv) {
    DecodeOptions opts;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--stream") == 0) opts.stream_tokens = true;

    const int vocab = 8192, dim = 512;
    std::vector<float> wte(size_t(vocab) * dim);
    for (size_t i = 0; i < wte.size(); ++i) wte[i] = float((i * 1103515245u + 12345u) % 4096) / 4096.f - 0.5f;

    float *d_wte, *d_hidden, *d_logits;
    int* d_token;
    int* h_token;
    CUDA_CHECK(cudaMalloc(&d_wte, wte.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_hidden, dim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_logits, vocab * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_token, sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_token, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_wte, wte.data(), wte.size() * sizeof(float), cudaMemcpyHostToDevice));
    const int bos = 1;
    CUDA_CHECK(cudaMemcpy(d_token, &bos, sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::vector<int> generated;
    for (int step = 0; step < opts.max_new_tokens; ++step) {
        launch_embed(d_wte, d_token, d_hidden, dim, stream);
        launch_lm_head(d_wte, d_hidden, d_logits, vocab, dim, stream);
        launch_argmax(d_logits, d_token, vocab, stream);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_token, d_token, sizeof(int), cudaMemcpyDeviceToHost, stream));
        if (opts.stream_tokens)
            emit(*h_token); // EXPECT: missing_sync
        CUDA_CHECK(cudaStreamSynchronize(stream));
        generated.push_back(*h_token);
        if (*h_token == opts.eos) break;
    }
    if (opts.stream_tokens) printf("\n");
    printf("generated %zu tokens\n", generated.size());

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_wte));
    CUDA_CHECK(cudaFree(d_hidden));
    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_token));
    CUDA_CHECK(cudaFreeHost(h_token));
    return 0;
}
