// case: sparse attention scorer: per-call scratch comes from cudaMallocAsync and is released with cudaFreeAsync on the same stream after the kernels that use it; the pinned result is read after cudaStreamSynchronize
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void qk_scores(const float* q, const float* k, float* scratch, int tokens, int dim) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tokens) return;
    float acc = 0.0f;
    for (int d = 0; d < dim; ++d) acc += q[d] * k[static_cast<size_t>(t) * dim + d];
    scratch[t] = acc;
}

__global__ void max_reduce(const float* scratch, int tokens, float* out) {
    __shared__ float best[256];
    float m = -1e30f;
    for (int t = threadIdx.x; t < tokens; t += blockDim.x) m = fmaxf(m, scratch[t]);
    best[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = best[0];
}

class AttentionProbe {
public:
    AttentionProbe(int tokens, int dim) : tokens_(tokens), dim_(dim) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_q_, dim_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_k_, static_cast<size_t>(tokens_) * dim_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_max_, sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_max_, sizeof(float)));
        CUDA_CHECK(cudaMemsetAsync(d_q_, 0, dim_ * sizeof(float), stream_));
        CUDA_CHECK(cudaMemsetAsync(d_k_, 0, static_cast<size_t>(tokens_) * dim_ * sizeof(float), stream_));
    }
    ~AttentionProbe() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_max_);
        cudaFree(d_max_);
        cudaFree(d_k_);
        cudaFree(d_q_);
        cudaStreamDestroy(stream_);
    }

    float peak_score() {
        float* scratch = nullptr;
        CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&scratch), tokens_ * sizeof(float), stream_));
        qk_scores<<<(tokens_ + 255) / 256, 256, 0, stream_>>>(d_q_, d_k_, scratch, tokens_, dim_);
        max_reduce<<<1, 256, 0, stream_>>>(scratch, tokens_, d_max_);
        CUDA_CHECK(cudaFreeAsync(scratch, stream_));
        CUDA_CHECK(cudaMemcpyAsync(h_max_, d_max_, sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return *h_max_;
    }

private:
    int tokens_, dim_;
    cudaStream_t stream_ = nullptr;
    float* d_q_ = nullptr;
    float* d_k_ = nullptr;
    float* d_max_ = nullptr;
    float* h_max_ = nullptr;
};

int main() {
    AttentionProbe probe(32768, 128);
    for (int i = 0; i < 3; ++i) std::printf("peak score %f\n", probe.peak_score());
    return 0;
}
