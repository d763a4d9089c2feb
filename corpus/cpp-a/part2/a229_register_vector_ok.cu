// case: parquet page decoder page-locks its std::vector page buffer in place with cudaHostRegister, streams it to the GPU and the decoded values back into it, synchronizes, reads, then cudaHostUnregisters: near-miss, registered memory is pinned and every host access follows the sync
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void zigzag_decode(const uint32_t* in, int32_t* out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = (int32_t)((in[i] >> 1) ^ (0u - (in[i] & 1u)));
}

class PageDecoder {
public:
    PageDecoder(size_t max_values, cudaStream_t stream) : page_(max_values), stream_(stream) {
        CUDA_CHECK(cudaHostRegister(page_.data(), page_.size() * sizeof(uint32_t), cudaHostRegisterDefault));
        CUDA_CHECK(cudaMalloc(&d_in_, page_.size() * sizeof(uint32_t)));
        CUDA_CHECK(cudaMalloc(&d_out_, page_.size() * sizeof(int32_t)));
    }
    ~PageDecoder() {
        cudaStreamSynchronize(stream_);
        cudaHostUnregister(page_.data());
        cudaFree(d_in_);
        cudaFree(d_out_);
    }

    std::vector<uint32_t>& page() { return page_; }

    int64_t decode_and_sum(size_t n) {
        CUDA_CHECK(cudaMemcpyAsync(d_in_, page_.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, stream_));
        zigzag_decode<<<(unsigned)((n + 255) / 256), 256, 0, stream_>>>(d_in_, d_out_, n);
        CUDA_CHECK(cudaMemcpyAsync(page_.data(), d_out_, n * sizeof(int32_t), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        int64_t sum = 0;
        for (size_t i = 0; i < n; ++i) sum += static_cast<int32_t>(page_[i]);
        return sum;
    }

private:
    std::vector<uint32_t> page_;  // never resized after registration
    cudaStream_t stream_;
    uint32_t* d_in_ = nullptr;
    int32_t* d_out_ = nullptr;
};

int main() {
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    {
        PageDecoder dec(1u << 22, s);
        for (int round = 0; round < 3; ++round) {
            for (size_t i = 0; i < dec.page().size(); ++i) dec.page()[i] = (uint32_t)(i + round);
            std::printf("round %d: sum %lld\n", round, (long long)dec.decode_and_sum(dec.page().size()));
        }
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
