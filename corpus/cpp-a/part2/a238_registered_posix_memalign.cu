// case: LZ4-style decompression worker reads compressed blocks into a posix_memalign'd buffer that it page-locks with cudaHostRegister, uploads and downloads through it asynchronously, synchronizes, then cudaHostUnregisters and free()s it: near-miss, the memory is pinned while the async copies use it and released by the right functions
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void expand_literals(const uint8_t* in, uint8_t* out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) { out[2 * i] = in[i]; out[2 * i + 1] = in[i]; }
}

class DecompressWorker {
public:
    explicit DecompressWorker(size_t max_in) : max_in_(max_in) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        void* p = nullptr;
        if (posix_memalign(&p, 4096, 3 * max_in) != 0) std::abort();
        io_ = static_cast<uint8_t*>(p);
        CUDA_CHECK(cudaHostRegister(io_, 3 * max_in, cudaHostRegisterPortable));
        CUDA_CHECK(cudaMalloc(&d_in_, max_in));
        CUDA_CHECK(cudaMalloc(&d_out_, 2 * max_in));
    }
    ~DecompressWorker() {
        cudaStreamSynchronize(stream_);
        cudaHostUnregister(io_);
        std::free(io_);
        cudaFree(d_in_);
        cudaFree(d_out_);
        cudaStreamDestroy(stream_);
    }

    uint8_t* compressed() { return io_; }             // [0, max_in)
    const uint8_t* decompressed() const { return io_ + max_in_; }  // [max_in, 3 max_in)

    size_t run(size_t n) {
        if (n > max_in_) return 0;
        CUDA_CHECK(cudaMemcpyAsync(d_in_, io_, n, cudaMemcpyHostToDevice, stream_));
        expand_literals<<<(unsigned)((n + 255) / 256), 256, 0, stream_>>>(d_in_, d_out_, n);
        CUDA_CHECK(cudaMemcpyAsync(io_ + max_in_, d_out_, 2 * n, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return 2 * n;
    }

private:
    size_t max_in_;
    cudaStream_t stream_{};
    uint8_t* io_ = nullptr;
    uint8_t* d_in_ = nullptr;
    uint8_t* d_out_ = nullptr;
};

int main() {
    const size_t n = 16u << 20;
    DecompressWorker w(n);
    for (size_t i = 0; i < n; ++i) w.compressed()[i] = (uint8_t)(i ^ (i >> 8));
    size_t out = w.run(n);
    uint64_t sum = 0;
    for (size_t i = 0; i < out; ++i) sum += w.decompressed()[i];
    std::printf("decompressed %zu bytes, sum %llu\n", out, (unsigned long long)sum);
    return 0;
}
