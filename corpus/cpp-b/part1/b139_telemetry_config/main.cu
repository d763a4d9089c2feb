// case: satellite telemetry decoder configured by config.h: TELEMETRY_WC_RESULTS makes the checksum readback buffer cudaHostAllocWriteCombined, and TELEMETRY_EARLY_CHECKSUM (defined) compiles an early host read of it before the only sync, which sits under the undefined TELEMETRY_STRICT_SYNC
// expect: missing_sync=1, write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include "config.h"
#include "decoder.cuh"

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

class TelemetryDecoder {
public:
    TelemetryDecoder(int frames, int words_per_frame) : frames_(frames), words_(words_per_frame) {
        size_t raw_bytes = static_cast<size_t>(frames_) * words_ * sizeof(uint32_t);
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_raw_), raw_bytes, cudaHostAllocWriteCombined));
#if TELEMETRY_WC_RESULTS
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_sums_), frames_ * sizeof(uint32_t), cudaHostAllocWriteCombined | cudaHostAllocPortable));
#else
        CUDA_CHECK(cudaMallocHost(&h_sums_, frames_ * sizeof(uint32_t)));
#endif
        CUDA_CHECK(cudaMalloc(&d_raw_, raw_bytes));
        CUDA_CHECK(cudaMalloc(&d_sums_, frames_ * sizeof(uint32_t)));
    }
    ~TelemetryDecoder() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_sums_);
        cudaFree(d_raw_);
        cudaFreeHost(h_sums_);
        cudaFreeHost(h_raw_);
        cudaStreamDestroy(stream_);
    }

    uint32_t* raw() { return h_raw_; }

    uint32_t decode() {
        size_t raw_bytes = static_cast<size_t>(frames_) * words_ * sizeof(uint32_t);
        CUDA_CHECK(cudaMemcpyAsync(d_raw_, h_raw_, raw_bytes, cudaMemcpyHostToDevice, stream_));
        decode_frames<<<(frames_ + 255) / 256, 256, 0, stream_>>>(d_raw_, frames_, words_, d_sums_);
        CUDA_CHECK(cudaMemcpyAsync(h_sums_, d_sums_, frames_ * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream_));
        uint32_t digest = 0;
#ifdef TELEMETRY_EARLY_CHECKSUM
        digest ^= h_sums_[0]; // EXPECT: missing_sync, write_combined_host_read
#endif
#ifdef TELEMETRY_STRICT_SYNC
        CUDA_CHECK(cudaStreamSynchronize(stream_));
#endif
        return digest;
    }

private:
    int frames_, words_;
    cudaStream_t stream_ = nullptr;
    uint32_t* h_raw_ = nullptr;
    uint32_t* h_sums_ = nullptr;
    uint32_t* d_raw_ = nullptr;
    uint32_t* d_sums_ = nullptr;
};

int main() {
    TelemetryDecoder dec(1 << 16, 64);
    uint32_t* raw = dec.raw();
    for (size_t i = 0; i < size_t(1 << 16) * 64; ++i) raw[i] = static_cast<uint32_t>(i * 2654435761u);
    std::printf("digest %08x\n", dec.decode());
    return 0;
}
