// case: RAII pinned staging buffer (cudaMallocHost in the constructor, sync + cudaFreeHost in the destructor) feeding an async upload and readback: near-miss, pinned memory and the stream is synchronized before every host read
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,            \
                         cudaGetErrorString(err_));                           \
            std::abort();                                                     \
        }                                                                     \
    } while (0)

__global__ void scale_kernel(const float* in, float* out, float alpha, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = alpha * in[i];
}

template <typename T>
class PinnedStaging {
public:
    PinnedStaging(size_t count, cudaStream_t stream) : count_(count), stream_(stream) {
        CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&this->host_), count * sizeof(T)));
    }
    ~PinnedStaging() {
        // whatever is still queued on our stream may read or write host_
        cudaStreamSynchronize(stream_);
        cudaFreeHost(this->host_);
    }
    PinnedStaging(const PinnedStaging&) = delete;
    PinnedStaging& operator=(const PinnedStaging&) = delete;

    T* data() { return host_; }
    size_t bytes() const { return count_ * sizeof(T); }
    size_t size() const { return count_; }

private:
    T* host_ = nullptr;
    size_t count_;
    cudaStream_t stream_;
};

int main() {
    const size_t n = 1 << 22;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float* d_in = nullptr;
    float* d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));

    {
        PinnedStaging<float> upload(n, stream);
        PinnedStaging<float> download(n, stream);
        for (size_t i = 0; i < upload.size(); ++i) upload.data()[i] = static_cast<float>(i % 97);

        CUDA_CHECK(cudaMemcpyAsync(d_in, upload.data(), upload.bytes(), cudaMemcpyHostToDevice, stream));
        scale_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(d_in, d_out, 0.5f, n);
        CUDA_CHECK(cudaMemcpyAsync(download.data(), d_out, download.bytes(), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));

        double sum = 0.0;
        for (size_t i = 0; i < download.size(); ++i) sum += download.data()[i];
        std::printf("sum = %f\n", sum);
    }  // destructors: synchronize, then cudaFreeHost

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
