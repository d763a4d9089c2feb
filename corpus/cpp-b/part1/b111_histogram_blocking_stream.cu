// case: image histogram: the kernel runs on a stream made by cudaStreamCreate (a blocking stream), so the following plain cudaMemcpy on the legacy default stream waits for it before copying the bins back; reading them after is safe
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
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

constexpr int kBins = 256;

__global__ void histogram256(const uint8_t* pixels, int n, unsigned int* bins) {
    __shared__ unsigned int local[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[pixels[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

class Equalizer {
public:
    explicit Equalizer(int pixels) : pixels_(pixels) {
        CUDA_CHECK(cudaStreamCreate(&stream_));
        CUDA_CHECK(cudaMalloc(&d_pixels_, pixels_));
        CUDA_CHECK(cudaMalloc(&d_bins_, kBins * sizeof(unsigned int)));
    }
    ~Equalizer() {
        cudaFree(d_bins_);
        cudaFree(d_pixels_);
        cudaStreamDestroy(stream_);
    }

    std::vector<float> cdf(const std::vector<uint8_t>& image) {
        CUDA_CHECK(cudaMemcpy(d_pixels_, image.data(), pixels_, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemsetAsync(d_bins_, 0, kBins * sizeof(unsigned int), stream_));
        histogram256<<<120, 256, 0, stream_>>>(d_pixels_, pixels_, d_bins_);
        CUDA_CHECK(cudaGetLastError());

        unsigned int bins[kBins];
        CUDA_CHECK(cudaMemcpy(bins, d_bins_, sizeof(bins), cudaMemcpyDeviceToHost));

        std::vector<float> out(kBins);
        unsigned long long running = 0;
        for (int b = 0; b < kBins; ++b) {
            running += bins[b];
            out[b] = static_cast<float>(running) / pixels_;
        }
        return out;
    }

private:
    int pixels_;
    cudaStream_t stream_ = nullptr;
    uint8_t* d_pixels_ = nullptr;
    unsigned int* d_bins_ = nullptr;
};

int main() {
    const int w = 3840, h = 2160;
    std::vector<uint8_t> image(static_cast<size_t>(w) * h);
    for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<uint8_t>((i * 31) & 0xff);
    Equalizer eq(w * h);
    std::vector<float> cdf = eq.cdf(image);
    std::printf("cdf[127] = %f\n", cdf[127]);
    return 0;
}
