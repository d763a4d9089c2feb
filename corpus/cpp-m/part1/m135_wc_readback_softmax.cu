// case: A token sampler allocates both of its pinned staging buffers with cudaHostAllocWriteCombined; writing the upload buffer is fine, but the host reads the probabilities copied back into the write-combined download buffer (write_combined_host_read at the first read), an uncached read over the bus.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kVocab = 50257;
constexpr int kThreads = 1024;

__global__ void softmax_temperature(const float* __restrict__ logits, float* __restrict__ probs, int n, float inv_t) {
    __shared__ float red[kThreads];
    float m = -INFINITY;
    for (int i = threadIdx.x; i < n; i += kThreads) m = fmaxf(m, logits[i] * inv_t);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    float mx = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int i = threadIdx.x; i < n; i += kThreads) sum += __expf(logits[i] * inv_t - mx);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float inv_sum = 1.0f / red[0];
    for (int i = threadIdx.x; i < n; i += kThreads) probs[i] = __expf(logits[i] * inv_t - mx) * inv_sum;
}

int main() {
    float *h_logits = nullptr, *h_probs = nullptr;
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_logits), kVocab * sizeof(float), cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_probs), kVocab * sizeof(float), cudaHostAllocWriteCombined));
    float *d_logits = nullptr, *d_probs = nullptr;
    CUDA_CHECK(cudaMalloc(&d_logits, kVocab * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_probs, kVocab * sizeof(float)));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    unsigned rng = 0x2545F491u;
    for (int step = 0; step < 4; ++step) {
        for (int i = 0; i < kVocab; ++i) h_logits[i] = 8.0f * std::sin(0.001f * i * (step + 1)) + (i % 911 == 0 ? 12.0f : 0.0f);
        CUDA_CHECK(cudaMemcpyAsync(d_logits, h_logits, kVocab * sizeof(float), cudaMemcpyHostToDevice, stream));
        softmax_temperature<<<1, kThreads, 0, stream>>>(d_logits, d_probs, kVocab, 1.0f / 0.8f);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_probs, d_probs, kVocab * sizeof(float), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));

        // inverse-CDF sampling on the host
        rng = rng * 1103515245u + 12345u;
        float u = float(rng >> 8) / float(1u << 24), cdf = 0.0f;
        int token = kVocab - 1;
        for (int i = 0; i < kVocab; ++i) {
            cdf += h_probs[i];  // EXPECT: write_combined_host_read
            if (cdf >= u) { token = i; break; }
        }
        std::printf("step %d: sampled token %d\n", step, token);
    }

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_probs));
    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFreeHost(h_probs));
    CUDA_CHECK(cudaFreeHost(h_logits));
    return 0;
}
