// case: decode loop records a completion event after the logits readback and waits on it (cudaEventSynchronize) before sampling from the pinned buffer: near-miss, the event orders the copy
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t s_ = (x);                                                  \
        if (s_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s_));       \
            std::exit(2);                                                      \
        }                                                                      \
    } while (0)

__global__ void softmax_rows(float* logits, int vocab) {
    float* row = logits + (size_t)blockIdx.x * vocab;
    __shared__ float mx;
    if (threadIdx.x == 0) {
        mx = row[0];
        for (int v = 1; v < vocab; ++v) mx = fmaxf(mx, row[v]);
    }
    __syncthreads();
    for (int v = threadIdx.x; v < vocab; v += blockDim.x) row[v] = __expf(row[v] - mx);
}

struct DecodeStep {
    cudaStream_t stream;
    cudaEvent_t logits_ready;
    float* d_logits;
    float* h_logits;  // pinned
    int batch;
    int vocab;
};

static void enqueue_step(DecodeStep& st) {
    softmax_rows<<<st.batch, 128, 0, st.stream>>>(st.d_logits, st.vocab);
    CUDA_CHECK(cudaMemcpyAsync(st.h_logits, st.d_logits, sizeof(float) * st.batch * st.vocab,
                               cudaMemcpyDeviceToHost, st.stream));
    CUDA_CHECK(cudaEventRecord(st.logits_ready, st.stream));
}

static std::vector<int> sample(DecodeStep& st, std::mt19937& rng) {
    CUDA_CHECK(cudaEventSynchronize(st.logits_ready));
    std::vector<int> out(st.batch);
    for (int b = 0; b < st.batch; ++b) {
        const float* p = st.h_logits + (size_t)b * st.vocab;
        double total = 0.0;
        for (int v = 0; v < st.vocab; ++v) total += p[v];
        std::uniform_real_distribution<double> u(0.0, total);
        double r = u(rng), c = 0.0;
        int pick = st.vocab - 1;
        for (int v = 0; v < st.vocab; ++v) { c += p[v]; if (c >= r) { pick = v; break; } }
        out[b] = pick;
    }
    return out;
}

int main() {
    DecodeStep st{};
    st.batch = 16;
    st.vocab = 50257;
    CUDA_CHECK(cudaStreamCreateWithFlags(&st.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&st.logits_ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaMalloc(&st.d_logits, sizeof(float) * st.batch * st.vocab));
    CUDA_CHECK(cudaHostAlloc(&st.h_logits, sizeof(float) * st.batch * st.vocab, cudaHostAllocDefault));
    CUDA_CHECK(cudaMemsetAsync(st.d_logits, 0, sizeof(float) * st.batch * st.vocab, st.stream));

    std::mt19937 rng(42);
    for (int step = 0; step < 8; ++step) {
        enqueue_step(st);
        std::vector<int> toks = sample(st, rng);
        std::printf("step %d: %d\n", step, toks[0]);
    }

    CUDA_CHECK(cudaStreamSynchronize(st.stream));
    CUDA_CHECK(cudaFreeHost(st.h_logits));
    CUDA_CHECK(cudaFree(st.d_logits));
    CUDA_CHECK(cudaEventDestroy(st.logits_ready));
    CUDA_CHECK(cudaStreamDestroy(st.stream));
    return 0;
}
