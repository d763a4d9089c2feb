// case: a radar pulse-compression front end stages each 8 MiB CPI in pinned memory only when RADAR_PINNED_STAGING is defined; the header leaves it commented out, so the default build uploads from malloc'd pageable memory with cudaMemcpyAsync.
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include "radar_config.h"

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void matched_filter(const float2* in, const float2* ref, float2* out, int samples) {
    int p = blockIdx.y, s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= samples) return;
    float2 a = in[p * samples + s], b = ref[s];
    out[p * samples + s] = make_float2(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}

class PulseCompressor {
public:
    PulseCompressor() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_in_, RADAR_CPI_BYTES));
        CUDA_CHECK(cudaMalloc(&d_out_, RADAR_CPI_BYTES));
        CUDA_CHECK(cudaMalloc(&d_ref_, sizeof(float2) * RADAR_SAMPLES_PER_PULSE));
        CUDA_CHECK(cudaMemsetAsync(d_ref_, 0, sizeof(float2) * RADAR_SAMPLES_PER_PULSE, stream_));
#ifdef RADAR_PINNED_STAGING
        CUDA_CHECK(cudaMallocHost(&staging_, RADAR_CPI_BYTES));
#else
        staging_ = static_cast<float2*>(std::malloc(RADAR_CPI_BYTES));
#endif
    }
    ~PulseCompressor() {
        cudaStreamSynchronize(stream_);
#ifdef RADAR_PINNED_STAGING
        cudaFreeHost(staging_);
#else
        std::free(staging_);
#endif
        cudaFree(d_ref_);
        cudaFree(d_out_);
        cudaFree(d_in_);
        cudaStreamDestroy(stream_);
    }

    void process_cpi(int cpi) {
        for (int i = 0; i < RADAR_SAMPLES_PER_PULSE * RADAR_PULSES_PER_CPI; ++i)
            staging_[i] = make_float2(float((i + cpi) % 17), float(i % 5));
        CUDA_CHECK(cudaMemcpyAsync(d_in_, staging_, RADAR_CPI_BYTES, cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
        matched_filter<<<dim3(RADAR_SAMPLES_PER_PULSE / 256, RADAR_PULSES_PER_CPI), 256, 0, stream_>>>(
            d_in_, d_ref_, d_out_, RADAR_SAMPLES_PER_PULSE);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    cudaStream_t stream_{};
    float2* d_in_ = nullptr;
    float2* d_out_ = nullptr;
    float2* d_ref_ = nullptr;
    float2* staging_ = nullptr;
};

int main() {
    PulseCompressor pc;
    for (int cpi = 0; cpi < 10; ++cpi) pc.process_cpi(cpi);
    std::puts("10 CPIs compressed");
    return 0;
}
