// case: a streaming image-statistics service downloads its 64 Ki-bin histogram into pinned memory allocated with cudaHostAllocWriteCombined | cudaHostAllocMapped, synchronizes correctly, then sums the bins on the host: a host read of write-combined memory.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return -1; } } while (0)

constexpr int kBins = 1 << 16;
constexpr int kPixels = 1 << 24;

__global__ void histo(const uint16_t* pix, int n, unsigned int* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[pix[i]], 1u);
}

__global__ void synth(uint16_t* pix, int n, int frame) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) pix[i] = uint16_t((i * 40503u + frame * 977u) >> 7);
}

class StatsService {
public:
    int init() {
        CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_pix_, kPixels * sizeof(uint16_t)));
        CUDA_CHECK(cudaMalloc(&d_bins_, kBins * sizeof(unsigned int)));
        CUDA_CHECK(cudaHostAlloc(&h_bins_, kBins * sizeof(unsigned int),
                                 cudaHostAllocWriteCombined | cudaHostAllocMapped));
        return 0;
    }
    void fini() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_bins_);
        cudaFree(d_bins_);
        cudaFree(d_pix_);
        cudaStreamDestroy(stream_);
    }

    double mean_level(int frame) {
        synth<<<kPixels / 256, 256, 0, stream_>>>(d_pix_, kPixels, frame);
        if (cudaMemsetAsync(d_bins_, 0, kBins * sizeof(unsigned int), stream_) != cudaSuccess) return -1.0;
        histo<<<kPixels / 256, 256, 0, stream_>>>(d_pix_, kPixels, d_bins_);
        if (cudaMemcpyAsync(h_bins_, d_bins_, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost, stream_) !=
            cudaSuccess)
            return -1.0;
        if (cudaStreamSynchronize(stream_) != cudaSuccess) return -1.0;
        double weighted = 0.0, count = 0.0;
        for (int b = 0; b < kBins; ++b) {
            unsigned int c = h_bins_[b]; // EXPECT: write_combined_host_read
            weighted += double(b) * c;
            count += c;
        }
        return count > 0 ? weighted / count : 0.0;
    }

private:
    cudaStream_t stream_{};
    uint16_t* d_pix_ = nullptr;
    unsigned int* d_bins_ = nullptr;
    unsigned int* h_bins_ = nullptr;
};

int main() {
    StatsService svc;
    if (svc.init() != 0) return 1;
    for (int f = 0; f < 4; ++f) std::printf("frame %d mean level %.2f\n", f, svc.mean_level(f));
    svc.fini();
    return 0;
}
