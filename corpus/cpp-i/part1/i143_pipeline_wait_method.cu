// case: a reduction pipeline class writes per-block partials that a second kernel reduces, downloads only the final value into pinned memory, and its wait() method synchronizes before result() reads it
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void partial_max(const float* in, int n, float* partials) {
    __shared__ float m[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    m[threadIdx.x] = i < n ? in[i] : -1e30f;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) m[threadIdx.x] = fmaxf(m[threadIdx.x], m[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = m[0];
}

__global__ void final_max(const float* partials, int nblocks, float* out) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    float m = -1e30f;
    for (int b = 0; b < nblocks; ++b) m = fmaxf(m, partials[b]);
    *out = m;
}

class MaxPipeline {
public:
    explicit MaxPipeline(int n) : n_(n), blocks_((n + 255) / 256) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_in_, n_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_partials_, blocks_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_out_, sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_out_, sizeof(float)));
    }
    ~MaxPipeline() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_out_);
        cudaFree(d_out_);
        cudaFree(d_partials_);
        cudaFree(d_in_);
        cudaStreamDestroy(stream_);
    }

    void submit(const float* h_in) {
        CUDA_CHECK(cudaMemcpyAsync(d_in_, h_in, n_ * sizeof(float), cudaMemcpyHostToDevice, stream_));
        partial_max<<<blocks_, 256, 0, stream_>>>(d_in_, n_, d_partials_);
        final_max<<<1, 32, 0, stream_>>>(d_partials_, blocks_, d_out_);
        CUDA_CHECK(cudaMemcpyAsync(h_out_, d_out_, sizeof(float), cudaMemcpyDeviceToHost, stream_));
    }
    void wait() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }
    float result() const { return *h_out_; }

private:
    int n_, blocks_;
    cudaStream_t stream_ = nullptr;
    float* d_in_ = nullptr;
    float* d_partials_ = nullptr;
    float* d_out_ = nullptr;
    float* h_out_ = nullptr;
};

int main() {
    const int n = 10000000;
    float* h_in = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_in[i] = (float)((i * 7) % 1000003);

    MaxPipeline pipe(n);
    pipe.submit(h_in);
    pipe.wait();
    printf("max = %.0f\n", pipe.result());

    CUDA_CHECK(cudaFreeHost(h_in));
    return 0;
}
