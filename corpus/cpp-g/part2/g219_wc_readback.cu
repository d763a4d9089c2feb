// case: an image-statistics service allocates both its upload and its readback StagingBuffer with cudaHostAllocWriteCombined; the upload side is only written, but the host reads the readback buffer (after synchronizing) to compute the histogram mean.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <utility>

#define STAT_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));   \
    } while (0)

template <typename T>
class StagingBuffer {
public:
    explicit StagingBuffer(size_t n) : n_(n) {
        // Write-combined: fastest PCIe uploads.
        STAT_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&p_), n * sizeof(T), cudaHostAllocWriteCombined));
    }
    StagingBuffer(StagingBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(o.n_) {}
    ~StagingBuffer() { if (p_) cudaFreeHost(p_); }
    T* begin() { return p_; }
    T* end() { return p_ + n_; }
    T* data() { return p_; }
    T& operator[](size_t i) { return p_[i]; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

__global__ void luma_histogram(const uchar4* rgba, int n, unsigned* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = rgba[i];
    int y = (77 * p.x + 150 * p.y + 29 * p.z) >> 8;
    atomicAdd(&bins[y], 1u);
}

class HistogramService {
public:
    explicit HistogramService(int pixels) : pixels_(pixels), upload_(pixels), readback_(256) {
        STAT_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        STAT_CHECK(cudaMalloc(&d_rgba_, upload_.bytes()));
        STAT_CHECK(cudaMalloc(&d_bins_, readback_.bytes()));
    }
    ~HistogramService() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_rgba_);
        cudaFree(d_bins_);
        cudaStreamDestroy(stream_);
    }

    double mean_luma(uint32_t seed) {
        for (int i = 0; i < pixels_; ++i) {
            uint32_t v = seed * 2654435761u + i * 40503u;
            upload_[i] = make_uchar4(v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, 255);
        }
        STAT_CHECK(cudaMemcpyAsync(d_rgba_, upload_.data(), upload_.bytes(), cudaMemcpyHostToDevice, stream_));
        STAT_CHECK(cudaMemsetAsync(d_bins_, 0, readback_.bytes(), stream_));
        luma_histogram<<<(pixels_ + 255) / 256, 256, 0, stream_>>>(d_rgba_, pixels_, d_bins_);
        STAT_CHECK(cudaMemcpyAsync(readback_.data(), d_bins_, readback_.bytes(), cudaMemcpyDeviceToHost, stream_));
        STAT_CHECK(cudaStreamSynchronize(stream_));

        unsigned long long count = std::accumulate(readback_.begin(), readback_.end(), 0ull);
        unsigned long long weighted = 0;
        for (int b = 0; b < 256; ++b) weighted += static_cast<unsigned long long>(b) * readback_[b];
        return count ? double(weighted) / count : 0.0;
    }

private:
    int pixels_;
    StagingBuffer<uchar4> upload_;
    StagingBuffer<unsigned> readback_;
    cudaStream_t stream_{};
    uchar4* d_rgba_ = nullptr;
    unsigned* d_bins_ = nullptr;
};

int main() {
    HistogramService svc(2560 * 1440);
    for (uint32_t frame = 0; frame < 5; ++frame)
        std::printf("frame %u mean luma %.2f\n", frame, svc.mean_luma(frame + 1));
    return 0;
}
