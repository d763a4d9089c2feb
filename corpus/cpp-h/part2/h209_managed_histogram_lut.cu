// case: image pipeline fills a managed tone-curve LUT on the host while the histogram kernel (which does not use the LUT) is still running on its stream; the histogram bins themselves are only read after the stream is synchronized.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cmath>

struct ToneCurve { float gamma; float gain; uint8_t lut[256]; };

__global__ void histogram(const uint8_t* pix, size_t n, unsigned int* bins) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[pix[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void apply_curve(uint8_t* pix, size_t n, const ToneCurve* curve) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) pix[i] = curve->lut[pix[i]];
}

class Equalizer {
public:
    explicit Equalizer(size_t n) : n_(n) {
        cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
        cudaMalloc(&d_pix_, n_);
        cudaMallocManaged(&bins_, 256 * sizeof(unsigned int));
        cudaMallocManaged(&curve_, sizeof(ToneCurve));
        cudaMemsetAsync(d_pix_, 0x40, n_, stream_);
    }
    ~Equalizer() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_pix_); cudaFree(bins_); cudaFree(curve_);
        cudaStreamDestroy(stream_);
    }

    void run(float gamma) {
        cudaMemsetAsync(bins_, 0, 256 * sizeof(unsigned int), stream_);
        histogram<<<120, 256, 0, stream_>>>(d_pix_, n_, bins_);
        // prepare the curve for the next kernel while the histogram runs
        curve_->gamma = gamma;
        curve_->gain = 1.0f;
        for (int v = 0; v < 256; ++v)
            curve_->lut[v] = uint8_t(255.0f * powf(v / 255.0f, 1.0f / gamma));
        cudaStreamSynchronize(stream_);
        unsigned long long total = 0;
        for (int b = 0; b < 256; ++b) total += bins_[b];
        printf("histogram total %llu\n", total);
        apply_curve<<<unsigned((n_ + 255) / 256), 256, 0, stream_>>>(d_pix_, n_, curve_);
        cudaStreamSynchronize(stream_);
    }

private:
    size_t n_;
    cudaStream_t stream_{};
    uint8_t* d_pix_ = nullptr;
    unsigned int* bins_ = nullptr;
    ToneCurve* curve_ = nullptr;
};

int main() {
    Equalizer eq(size_t(3840) * 2160);
    eq.run(2.2f);
    eq.run(1.8f);
    return 0;
}
