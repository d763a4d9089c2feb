// case: stream worker keeps per-batch statistics in managed memory allocated with cudaMemAttachHost (never attached to a stream) and updates them on the host while the batch kernel, which does not use them, runs: near-miss, host-attached managed memory is not taken by the GPU while kernels run
// expect: none
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

struct WorkerStats {
    uint64_t batches;
    uint64_t rows;
    double last_enqueue_ms;
};

__global__ void saxpy_batch(float a, const float* x, float* y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

class StreamWorker {
public:
    explicit StreamWorker(size_t n) : n_(n) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_x_, n * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_y_, n * sizeof(float)));
        // host-side bookkeeping: visible to the CPU only, never given to a kernel
        CUDA_CHECK(cudaMallocManaged(&stats_, sizeof(WorkerStats), cudaMemAttachHost));
        stats_->batches = 0;
        stats_->rows = 0;
        stats_->last_enqueue_ms = 0.0;
        CUDA_CHECK(cudaMemsetAsync(d_x_, 0, n * sizeof(float), stream_));
        CUDA_CHECK(cudaMemsetAsync(d_y_, 0, n * sizeof(float), stream_));
    }
    ~StreamWorker() {
        cudaStreamSynchronize(stream_);
        cudaFree(stats_);
        cudaFree(d_x_);
        cudaFree(d_y_);
        cudaStreamDestroy(stream_);
    }

    void submit(float a) {
        auto t0 = std::chrono::steady_clock::now();
        saxpy_batch<<<(unsigned)((n_ + 255) / 256), 256, 0, stream_>>>(a, d_x_, d_y_, n_);
        auto t1 = std::chrono::steady_clock::now();
        stats_->batches += 1;
        stats_->rows += n_;
        stats_->last_enqueue_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    }

    void drain() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }
    const WorkerStats& stats() const { return *stats_; }

private:
    size_t n_;
    cudaStream_t stream_{};
    float* d_x_ = nullptr;
    float* d_y_ = nullptr;
    WorkerStats* stats_ = nullptr;
};

int main() {
    StreamWorker w(1u << 22);
    for (int i = 0; i < 16; ++i) w.submit(0.5f * i);
    w.drain();
    std::printf("%llu batches, %llu rows, last enqueue %.3f ms\n",
                (unsigned long long)w.stats().batches, (unsigned long long)w.stats().rows,
                w.stats().last_enqueue_ms);
    return 0;
}
