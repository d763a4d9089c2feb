// case: a block-sum reducer class downloads its partial sums into pinned memory on its own stream and the caller totals them before the stream is synchronized
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err_));                                  \
            std::exit(EXIT_FAILURE);                                            \
        }                                                                       \
    } while (0)

__global__ void block_sum(const float* in, float* partial, int n) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = tile[0];
}

class Reducer {
public:
    Reducer(int n) : n_(n), blocks_((n + 255) / 256) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_in_, n_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_partial_, blocks_ * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_in_, n_ * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_partial_, blocks_ * sizeof(float)));
    }
    ~Reducer() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_partial_);
        cudaFreeHost(h_in_);
        cudaFree(d_partial_);
        cudaFree(d_in_);
        cudaStreamDestroy(stream_);
    }

    float* input() { return h_in_; }

    void run() {
        CUDA_CHECK(cudaMemcpyAsync(d_in_, h_in_, n_ * sizeof(float),
                                   cudaMemcpyHostToDevice, stream_));
        block_sum<<<blocks_, 256, 0, stream_>>>(d_in_, d_partial_, n_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_partial_, d_partial_, blocks_ * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));
    }

    double total() const {
        double t = 0.0;
        for (int b = 0; b < blocks_; ++b)
            t += h_partial_[b]; // EXPECT: missing_sync
        return t;
    }

    void wait() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    int n_;
    int blocks_;
    cudaStream_t stream_ = nullptr;
    float* d_in_ = nullptr;
    float* d_partial_ = nullptr;
    float* h_in_ = nullptr;
    float* h_partial_ = nullptr;
};

int main() {
    const int n = 1 << 22;
    Reducer r(n);
    float* in = r.input();
    for (int i = 0; i < n; ++i) in[i] = 1.0f / (1 + (i % 97));
    r.run();
    double t = r.total();
    r.wait();
    printf("sum = %.6f\n", t);
    return 0;
}
