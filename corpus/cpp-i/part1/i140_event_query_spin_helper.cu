// case: a decoder records an event after its pinned readback and a helper spins on cudaEventQuery, yielding the thread, until the event completes before the host parses the output tokens
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void greedy_argmax(const float* logits, int vocab, int batch, int32_t* tokens) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const float* row = logits + (size_t)b * vocab;
    int best = 0;
    for (int v = 1; v < vocab; ++v) if (row[v] > row[best]) best = v;
    tokens[b] = best;
}

static void wait_event(cudaEvent_t ev) {
    for (;;) {
        cudaError_t st = cudaEventQuery(ev);
        if (st == cudaSuccess) return;
        if (st != cudaErrorNotReady) {
            fprintf(stderr, "event failed: %s\n", cudaGetErrorString(st));
            exit(1);
        }
        std::this_thread::yield();
    }
}

int main() {
    const int vocab = 32000, batch = 64;
    const size_t logit_bytes = (size_t)vocab * batch * sizeof(float);
    cudaStream_t s;
    cudaEvent_t ready;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));

    float *h_logits, *d_logits;
    int32_t *h_tokens, *d_tokens;
    CUDA_CHECK(cudaMallocHost(&h_logits, logit_bytes));
    CUDA_CHECK(cudaMallocHost(&h_tokens, batch * sizeof(int32_t)));
    CUDA_CHECK(cudaMalloc(&d_logits, logit_bytes));
    CUDA_CHECK(cudaMalloc(&d_tokens, batch * sizeof(int32_t)));
    for (size_t i = 0; i < (size_t)vocab * batch; ++i) h_logits[i] = (float)((i * 7919) % vocab) / vocab;

    CUDA_CHECK(cudaMemcpyAsync(d_logits, h_logits, logit_bytes, cudaMemcpyHostToDevice, s));
    greedy_argmax<<<1, batch, 0, s>>>(d_logits, vocab, batch, d_tokens);
    CUDA_CHECK(cudaMemcpyAsync(h_tokens, d_tokens, batch * sizeof(int32_t), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaEventRecord(ready, s));

    wait_event(ready);
    for (int b = 0; b < 4; ++b) printf("seq %d -> token %d\n", b, h_tokens[b]);

    CUDA_CHECK(cudaFree(d_tokens));
    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFreeHost(h_tokens));
    CUDA_CHECK(cudaFreeHost(h_logits));
    CUDA_CHECK(cudaEventDestroy(ready));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
