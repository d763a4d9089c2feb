// case: reduction service class: upload() sends a std::vector with cudaMemcpyAsync (pageable source), fetch() returns the pinned result right after the device-to-host cudaMemcpyAsync without synchronizing the stream
// expect: missing_sync=1, pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, tile[0]);
}

class SumService {
public:
    explicit SumService(size_t capacity) : capacity_(capacity) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_in_, capacity_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_sum_, sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_sum_, sizeof(float)));
    }

    ~SumService() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_sum_);
        cudaFree(d_sum_);
        cudaFree(d_in_);
        cudaStreamDestroy(stream_);
    }

    SumService(const SumService&) = delete;
    SumService& operator=(const SumService&) = delete;

    void upload(const std::vector<float>& values) {
        if (values.size() > capacity_) return;
        count_ = values.size();
        CUDA_CHECK(cudaMemcpyAsync(this->d_in_, values.data(), count_ * sizeof(float), cudaMemcpyHostToDevice, this->stream_)); // EXPECT: pageable_async_copy
    }

    float fetch() {
        CUDA_CHECK(cudaMemsetAsync(d_sum_, 0, sizeof(float), stream_));
        int blocks = static_cast<int>((count_ + 255) / 256);
        block_sum<<<blocks, 256, 0, stream_>>>(d_in_, d_sum_, static_cast<int>(count_));
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_sum_, d_sum_, sizeof(float), cudaMemcpyDeviceToHost, stream_));
        return *this->h_sum_; // EXPECT: missing_sync
    }

private:
    size_t capacity_ = 0;
    size_t count_ = 0;
    cudaStream_t stream_ = nullptr;
    float* d_in_ = nullptr;
    float* d_sum_ = nullptr;
    float* h_sum_ = nullptr;
};

int main() {
    const size_t n = size_t(1) << 22;
    SumService service(n);
    std::vector<float> values(n, 0.5f);
    service.upload(values);
    float total = service.fetch();
    std::printf("sum = %f (expected %f)\n", total, 0.5f * n);
    return 0;
}
