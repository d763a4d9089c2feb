// case: two-stream worker (compute stream and copy stream, both non-blocking) queues the D2H readback of the partial aggregates on the copy stream but synchronizes only the compute stream before the host merges the pinned results
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void block_sums(const double* x, size_t n, double* partial) {
    extern __shared__ double sh[];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    sh[threadIdx.x] = i < n ? x[i] : 0.0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

class AggregationWorker {
public:
    AggregationWorker(size_t n, unsigned block) : n_(n), block_(block) {
        blocks_ = (unsigned)((n + block - 1) / block);
        CUDA_CHECK(cudaStreamCreateWithFlags(&compute_stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&computed_, cudaEventDisableTiming));
        CUDA_CHECK(cudaMalloc(&d_x_, n * sizeof(double)));
        CUDA_CHECK(cudaMalloc(&d_partial_, blocks_ * sizeof(double)));
        CUDA_CHECK(cudaMallocHost(&h_partial_, blocks_ * sizeof(double)));
        CUDA_CHECK(cudaMemsetAsync(d_x_, 0, n * sizeof(double), compute_stream_));
    }
    ~AggregationWorker() {
        cudaDeviceSynchronize();
        cudaFreeHost(h_partial_);
        cudaFree(d_partial_);
        cudaFree(d_x_);
        cudaEventDestroy(computed_);
        cudaStreamDestroy(copy_stream_);
        cudaStreamDestroy(compute_stream_);
    }

    double run() {
        block_sums<<<blocks_, block_, block_ * sizeof(double), compute_stream_>>>(d_x_, n_, d_partial_);
        CUDA_CHECK(cudaEventRecord(computed_, compute_stream_));
        CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, computed_, 0));
        CUDA_CHECK(cudaMemcpyAsync(h_partial_, d_partial_, blocks_ * sizeof(double), cudaMemcpyDeviceToHost, copy_stream_));

        CUDA_CHECK(cudaStreamSynchronize(compute_stream_));
        double total = 0.0;
        for (unsigned b = 0; b < blocks_; ++b) total += h_partial_[b]; // EXPECT: missing_sync
        return total;
    }

private:
    size_t n_;
    unsigned block_, blocks_ = 0;
    cudaStream_t compute_stream_{}, copy_stream_{};
    cudaEvent_t computed_{};
    double* d_x_ = nullptr;
    double* d_partial_ = nullptr;
    double* h_partial_ = nullptr;
};

int main() {
    AggregationWorker w(1u << 24, 256);
    std::printf("total %f\n", w.run());
    return 0;
}
