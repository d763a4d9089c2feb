// case: telemetry aggregation with double-buffered readback: the pinned pool is only under #ifdef HAVE_PINNED_POOL (not defined), so the two host buffers come from new float[] and the per-chunk device-to-host cudaMemcpyAsync targets pageable memory
// expect: pageable_async_copy=1
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

__global__ void rollup(const float* samples, float* out, int sensors, int window, int chunk) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= sensors) return;
    float acc = 0.0f;
    for (int w = 0; w < window; ++w) acc += samples[static_cast<size_t>((chunk + w) % window) * sensors + s];
    out[s] = acc / window;
}

class RollupReader {
public:
    RollupReader(int sensors, int window) : sensors_(sensors), window_(window) {
        size_t bytes = static_cast<size_t>(sensors_) * sizeof(float);
        for (int b = 0; b < 2; ++b) {
            CUDA_CHECK(cudaStreamCreateWithFlags(&streams_[b], cudaStreamNonBlocking));
            CUDA_CHECK(cudaMalloc(&d_out_[b], bytes));
#ifdef HAVE_PINNED_POOL
            CUDA_CHECK(cudaMallocHost(&h_out_[b], bytes));
#else
            h_out_[b] = new float[sensors_];
#endif
        }
        CUDA_CHECK(cudaMalloc(&d_samples_, static_cast<size_t>(sensors_) * window_ * sizeof(float)));
        CUDA_CHECK(cudaMemset(d_samples_, 0, static_cast<size_t>(sensors_) * window_ * sizeof(float)));
        CUDA_CHECK(cudaDeviceSynchronize());
    }

    ~RollupReader() {
        for (int b = 0; b < 2; ++b) {
            cudaStreamSynchronize(streams_[b]);
#ifdef HAVE_PINNED_POOL
            cudaFreeHost(h_out_[b]);
#else
            delete[] h_out_[b];
#endif
            cudaFree(d_out_[b]);
            cudaStreamDestroy(streams_[b]);
        }
        cudaFree(d_samples_);
    }

    double run(int chunks) {
        double grand = 0.0;
        size_t bytes = static_cast<size_t>(sensors_) * sizeof(float);
        for (int c = 0; c < chunks; ++c) {
            int b = c & 1;
            rollup<<<(sensors_ + 255) / 256, 256, 0, streams_[b]>>>(d_samples_, d_out_[b], sensors_, window_, c);
            CUDA_CHECK(cudaMemcpyAsync(h_out_[b], d_out_[b], bytes, cudaMemcpyDeviceToHost, streams_[b])); // EXPECT: pageable_async_copy
            if (c >= 1) {
                int prev = b ^ 1;
                CUDA_CHECK(cudaStreamSynchronize(streams_[prev]));
                for (int s = 0; s < sensors_; ++s) grand += h_out_[prev][s];
            }
        }
        int last = (chunks - 1) & 1;
        CUDA_CHECK(cudaStreamSynchronize(streams_[last]));
        for (int s = 0; s < sensors_; ++s) grand += h_out_[last][s];
        return grand;
    }

private:
    int sensors_, window_;
    cudaStream_t streams_[2] = {nullptr, nullptr};
    float* d_out_[2] = {nullptr, nullptr};
    float* h_out_[2] = {nullptr, nullptr};
    float* d_samples_ = nullptr;
};

int main() {
    RollupReader reader(1 << 18, 16);
    std::printf("grand mean sum %f\n", reader.run(64));
    return 0;
}
