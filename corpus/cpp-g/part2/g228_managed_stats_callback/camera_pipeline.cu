// case: a camera pipeline's HistogramStage bumps a managed FrameStats struct, launches its histogram kernel (which uses only device buffers) and immediately invokes the stored std::function callback, whose lambda reads the managed stats while that kernel may still run.
// expect: managed_concurrent_access=1
#include "stage.h"
#include <cstdio>
#include <memory>
#include <vector>

__global__ void histogram256(const uint8_t* px, int n, unsigned* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[px[i]], 1u);
}

class HistogramStage : public Stage {
public:
    explicit HistogramStage(int pixels) : pixels_(pixels) {
        STAGE_CHECK(cudaMalloc(&d_px_, pixels));
        STAGE_CHECK(cudaMalloc(&d_bins_, 256 * sizeof(unsigned)));
        STAGE_CHECK(cudaMallocManaged(&stats_, sizeof(FrameStats)));
        stats_->frames = 0;
        stats_->bytes_in = 0;
        stats_->last_exposure = 1.0f;
    }
    ~HistogramStage() override {
        cudaDeviceSynchronize();
        cudaFree(d_px_);
        cudaFree(d_bins_);
        cudaFree(stats_);
    }

    void run(const uint8_t* host_frame, cudaStream_t stream) override {
        stats_->frames += 1;
        stats_->bytes_in += static_cast<uint64_t>(pixels_);
        STAGE_CHECK(cudaMemcpyAsync(d_px_, host_frame, pixels_, cudaMemcpyHostToDevice, stream));
        STAGE_CHECK(cudaMemsetAsync(d_bins_, 0, 256 * sizeof(unsigned), stream));
        histogram256<<<(pixels_ + 255) / 256, 256, 0, stream>>>(d_px_, pixels_, d_bins_);
        notify(*stats_);
    }

private:
    int pixels_;
    uint8_t* d_px_ = nullptr;
    unsigned* d_bins_ = nullptr;
    FrameStats* stats_ = nullptr;
};

int main() {
    const int pixels = 1920 * 1080;
    cudaStream_t stream;
    STAGE_CHECK(cudaStreamCreate(&stream));
    uint8_t* h_frame = nullptr;
    STAGE_CHECK(cudaMallocHost(&h_frame, pixels));

    std::unique_ptr<Stage> stage = std::make_unique<HistogramStage>(pixels);
    auto logger = [](const FrameStats& s) {
        if (s.frames % 10 == 0)
            std::printf("%llu frames, %llu MB in\n", (unsigned long long)s.frames,
                        (unsigned long long)(s.bytes_in >> 20));
    };
    stage->on_frame_done(logger);

    for (int f = 0; f < 60; ++f) {
        for (int i = 0; i < pixels; ++i) h_frame[i] = static_cast<uint8_t>(i * 7 + f);
        stage->run(h_frame, stream);
        STAGE_CHECK(cudaStreamSynchronize(stream));
    }
    stage.reset();
    cudaFreeHost(h_frame);
    cudaStreamDestroy(stream);
    return 0;
}
