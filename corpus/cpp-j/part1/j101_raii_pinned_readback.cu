// case: RAII stream and pinned-buffer wrappers read back a reduction result with cudaMemcpyAsync, and the host sums the pinned buffer before the stream is synchronized
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_OK(call)                                                        \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,           \
                         cudaGetErrorString(e_));                            \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

class Stream {
public:
    Stream() { CUDA_OK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    operator cudaStream_t() const { return s_; }
    void sync() const { CUDA_OK(cudaStreamSynchronize(s_)); }
private:
    cudaStream_t s_{};
};

template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t n) : n_(n) {
        CUDA_OK(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)));
    }
    ~PinnedBuffer() { cudaFreeHost(p_); }
    T* data() { return p_; }
    T& operator[](size_t i) { return p_[i]; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* p_ = nullptr;
    size_t n_;
};

__global__ void partial_sums(const float* in, float* out, int n) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = (i < n) ? in[i] : 0.f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}

int main() {
    const int n = 1 << 22;
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;

    Stream stream;
    PinnedBuffer<float> h_in(n);
    PinnedBuffer<float> h_partial(blocks);
    for (int i = 0; i < n; ++i) h_in[i] = 1.0f / (1 + (i % 17));

    float *d_in = nullptr, *d_partial = nullptr;
    CUDA_OK(cudaMalloc(&d_in, h_in.bytes()));
    CUDA_OK(cudaMalloc(&d_partial, h_partial.bytes()));

    CUDA_OK(cudaMemcpyAsync(d_in, h_in.data(), h_in.bytes(), cudaMemcpyHostToDevice, stream));
    partial_sums<<<blocks, threads, 0, stream>>>(d_in, d_partial, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpyAsync(h_partial.data(), d_partial, h_partial.bytes(),
                            cudaMemcpyDeviceToHost, stream));

    double total = 0.0;
    for (int b = 0; b < blocks; ++b) total += h_partial[b]; // EXPECT: missing_sync
    stream.sync();
    std::printf("sum = %.3f over %d blocks\n", total, blocks);

    CUDA_OK(cudaFree(d_partial));
    CUDA_OK(cudaFree(d_in));
    return 0;
}
