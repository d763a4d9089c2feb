// case: streaming RMS over audio chunks refills one cudaHostRegister'ed staging vector each iteration while the previous iteration's cudaMemcpyAsync from it may still be in flight (no event or stream wait inside the loop).
// expect: missing_sync=1
#include "host_staging.h"
#include <algorithm>
#include <cmath>
#include <cstdio>

__global__ void sum_squares(const float* x, size_t n, double* acc) {
    __shared__ double part[256];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? double(x[i]) * x[i] : 0.0;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(acc, part[0]);
}

class ChunkedRms {
public:
    ChunkedRms(size_t chunk_elems, ChunkSink sink)
        : staging_(chunk_elems), sink_(std::move(sink)) {
        cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
        cudaMalloc(&d_chunk_, staging_.bytes());
        cudaMalloc(&d_acc_, sizeof(double));
        cudaMallocHost(&h_acc_, sizeof(double));
    }
    ~ChunkedRms() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_chunk_); cudaFree(d_acc_); cudaFreeHost(h_acc_);
        cudaStreamDestroy(stream_);
    }

    void run(const std::vector<float>& signal) {
        cudaMemsetAsync(d_acc_, 0, sizeof(double), stream_);
        size_t total = 0;
        int n_chunks = 0;
        for (size_t off = 0; off < signal.size(); off += staging_.size(), ++n_chunks) {
            size_t n = std::min(staging_.size(), signal.size() - off);
            std::copy(signal.begin() + off, signal.begin() + off + n, staging_.data());
            total += n;
            cudaMemcpyAsync(d_chunk_, staging_.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream_);
            sum_squares<<<unsigned((n + 255) / 256), 256, 0, stream_>>>(d_chunk_, n, d_acc_);
        }
        cudaMemcpyAsync(h_acc_, d_acc_, sizeof(double), cudaMemcpyDeviceToHost, stream_);
        cudaStreamSynchronize(stream_);
        sink_(n_chunks, total ? std::sqrt(*h_acc_ / double(total)) : 0.0);
    }

private:
    RegisteredBuffer<float> staging_;
    ChunkSink sink_;
    cudaStream_t stream_{};
    float* d_chunk_ = nullptr;
    double* d_acc_ = nullptr;
    double* h_acc_ = nullptr;
};

int main() {
    const size_t chunk = 1 << 20;
    std::vector<float> signal(32 * chunk);
    for (size_t i = 0; i < signal.size(); ++i) signal[i] = std::sin(0.001f * float(i));
    ChunkSink print = [](int chunks, double rms) { printf("%d chunks, rms %.6f\n", chunks, rms); };
    ChunkedRms rms(chunk, print);
    rms.run(signal);
    return 0;
}
