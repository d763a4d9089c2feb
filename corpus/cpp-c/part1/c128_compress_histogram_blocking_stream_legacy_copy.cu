// case: an entropy coder's histogram pass runs on a stream made with plain cudaStreamCreate (a blocking stream) and copies the histogram into pinned memory asynchronously; the blocking cudaMemcpy of the symbol total that follows runs on the legacy default stream, which waits for all prior work of blocking streams and returns only when done, so the pinned histogram is complete when the host reads it.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Built with nvcc's default (legacy) default stream: no --default-stream per-thread.

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

__global__ void byte_histogram(const uint8_t* data, size_t n, unsigned int* hist, unsigned long long* total) {
    __shared__ unsigned int local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        atomicAdd(&hist[i], local[i]);
        atomicAdd(total, static_cast<unsigned long long>(local[i]));
    }
}

class EntropyModel {
public:
    explicit EntropyModel(size_t block_bytes) : n_(block_bytes) {
        CUDA_CHECK(cudaStreamCreate(&stream_));                        // blocking w.r.t. the legacy stream
        CUDA_CHECK(cudaMalloc(&d_data_, n_));
        CUDA_CHECK(cudaMalloc(&d_hist_, 256 * sizeof(unsigned int)));
        CUDA_CHECK(cudaMalloc(&d_total_, sizeof(unsigned long long)));
        CUDA_CHECK(cudaMallocHost(&h_hist_, 256 * sizeof(unsigned int)));
    }
    ~EntropyModel() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_hist_);
        cudaFree(d_total_);
        cudaFree(d_hist_);
        cudaFree(d_data_);
        cudaStreamDestroy(stream_);
    }

    uint8_t* device_block() { return d_data_; }

    // Shannon bound in bits per byte for the current block.
    double bits_per_byte() {
        CUDA_CHECK(cudaMemsetAsync(d_hist_, 0, 256 * sizeof(unsigned int), stream_));
        CUDA_CHECK(cudaMemsetAsync(d_total_, 0, sizeof(unsigned long long), stream_));
        byte_histogram<<<120, 256, 0, stream_>>>(d_data_, n_, d_hist_, d_total_);
        CUDA_CHECK(cudaMemcpyAsync(h_hist_, d_hist_, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost, stream_));

        unsigned long long total = 0;
        CUDA_CHECK(cudaMemcpy(&total, d_total_, sizeof(total), cudaMemcpyDeviceToHost));  // legacy stream: waits for stream_

        double h = 0.0;
        for (int s = 0; s < 256; ++s) {
            if (h_hist_[s] == 0) continue;
            double p = static_cast<double>(h_hist_[s]) / static_cast<double>(total);
            h -= p * std::log2(p);
        }
        return h;
    }

private:
    size_t n_;
    cudaStream_t stream_ = nullptr;
    uint8_t* d_data_ = nullptr;
    unsigned int* d_hist_ = nullptr;
    unsigned long long* d_total_ = nullptr;
    unsigned int* h_hist_ = nullptr;
};

int main() {
    const size_t block = size_t(16) << 20;
    EntropyModel model(block);
    std::vector<uint8_t> text(block);
    for (size_t i = 0; i < block; ++i) text[i] = static_cast<uint8_t>("the quick brown fox "[i % 20]);
    CUDA_CHECK(cudaMemcpy(model.device_block(), text.data(), block, cudaMemcpyHostToDevice));
    std::printf("entropy bound: %.3f bits/byte\n", model.bits_per_byte());
    return 0;
}
