// case: seismic trace stacking: the file defines USE_PINNED_STAGING to 1, so the staging buffer comes from cudaMallocHost; the std::vector staging that would make the async copies pageable is only in the #else arm
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define USE_PINNED_STAGING 1

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void stack_traces(const float* traces, float* stacked, int samples, int traces_per_gather) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= samples) return;
    float acc = 0.0f;
    for (int t = 0; t < traces_per_gather; ++t) acc += traces[t * samples + s];
    stacked[s] = acc / traces_per_gather;
}

class GatherStacker {
public:
    GatherStacker(int samples, int traces) : samples_(samples), traces_(traces) {
        size_t in_elems = static_cast<size_t>(samples_) * traces_;
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_traces_, in_elems * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_stacked_, samples_ * sizeof(float)));
#if USE_PINNED_STAGING
        CUDA_CHECK(cudaMallocHost(&h_in_, in_elems * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_out_, samples_ * sizeof(float)));
#else
        in_storage_.resize(in_elems);
        out_storage_.resize(samples_);
        h_in_ = in_storage_.data();
        h_out_ = out_storage_.data();
#endif
    }

    ~GatherStacker() {
        cudaStreamSynchronize(stream_);
#if USE_PINNED_STAGING
        cudaFreeHost(h_out_);
        cudaFreeHost(h_in_);
#endif
        cudaFree(d_stacked_);
        cudaFree(d_traces_);
        cudaStreamDestroy(stream_);
    }

    float* input() { return h_in_; }

    float stack_and_peak() {
        size_t in_bytes = static_cast<size_t>(samples_) * traces_ * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(d_traces_, h_in_, in_bytes, cudaMemcpyHostToDevice, stream_));
        stack_traces<<<(samples_ + 255) / 256, 256, 0, stream_>>>(d_traces_, d_stacked_, samples_, traces_);
        CUDA_CHECK(cudaMemcpyAsync(h_out_, d_stacked_, samples_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        float peak = 0.0f;
        for (int s = 0; s < samples_; ++s) peak = h_out_[s] > peak ? h_out_[s] : peak;
        return peak;
    }

private:
    int samples_, traces_;
    cudaStream_t stream_ = nullptr;
    float* d_traces_ = nullptr;
    float* d_stacked_ = nullptr;
    float* h_in_ = nullptr;
    float* h_out_ = nullptr;
#if !USE_PINNED_STAGING
    std::vector<float> in_storage_;
    std::vector<float> out_storage_;
#endif
};

int main() {
    GatherStacker stacker(4000, 240);
    float* in = stacker.input();
    for (size_t i = 0; i < size_t(4000) * 240; ++i) in[i] = static_cast<float>((i * 7) % 13) - 6.0f;
    std::printf("peak amplitude %f\n", stacker.stack_and_peak());
    return 0;
}
