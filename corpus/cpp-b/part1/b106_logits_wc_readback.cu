// case: classifier head: logits are copied back into a cudaHostAlloc(cudaHostAllocWriteCombined) buffer that the host then scans for the argmax; a debug printf also indexes the device logits pointer
// expect: write_combined_host_read=1, host_deref_device_ptr=1
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

__global__ void linear_head(const float* hidden, const float* weight, float* logits, int dim, int classes) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= classes) return;
    float acc = 0.0f;
    for (int k = 0; k < dim; ++k) acc += hidden[k] * weight[c * dim + k];
    logits[c] = acc;
}

class ClassifierHead {
public:
    ClassifierHead(int dim, int classes) : dim_(dim), classes_(classes) {
        CUDA_CHECK(cudaStreamCreate(&stream_));
        CUDA_CHECK(cudaMalloc(&d_hidden_, dim_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_weight_, static_cast<size_t>(dim_) * classes_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_logits_, classes_ * sizeof(float)));
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_logits_), classes_ * sizeof(float), cudaHostAllocWriteCombined));
        CUDA_CHECK(cudaMemsetAsync(d_hidden_, 0, dim_ * sizeof(float), stream_));
        CUDA_CHECK(cudaMemsetAsync(d_weight_, 0, static_cast<size_t>(dim_) * classes_ * sizeof(float), stream_));
    }
    ~ClassifierHead() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_logits_);
        cudaFree(d_logits_);
        cudaFree(d_weight_);
        cudaFree(d_hidden_);
        cudaStreamDestroy(stream_);
    }

    int classify() {
        linear_head<<<(classes_ + 127) / 128, 128, 0, stream_>>>(d_hidden_, d_weight_, d_logits_, dim_, classes_);
        CUDA_CHECK(cudaMemcpyAsync(h_logits_, d_logits_, classes_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
#ifdef __CUDACC__
        std::printf("debug: first logit %f\n", d_logits_[0]); // EXPECT: host_deref_device_ptr
#endif
        int best = 0;
        float best_val = h_logits_[0]; // EXPECT: write_combined_host_read
        for (int c = 1; c < classes_; ++c) {
            if (h_logits_[c] > best_val) { best_val = h_logits_[c]; best = c; }
        }
        return best;
    }

private:
    int dim_, classes_;
    cudaStream_t stream_ = nullptr;
    float* d_hidden_ = nullptr;
    float* d_weight_ = nullptr;
    float* d_logits_ = nullptr;
    float* h_logits_ = nullptr;
};

int main() {
    ClassifierHead head(1024, 32000);
    std::printf("predicted class %d\n", head.classify());
    return 0;
}
