// case: a transcoding farm gives each worker its own stream, pinned input/output and device buffers; all workers are submitted, then each worker's stream is synchronized in a loop before any output is read
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#define CUDA_CHECK(x)                                                                    \
    do {                                                                                 \
        cudaError_t e = (x);                                                             \
        if (e != cudaSuccess) {                                                          \
            std::fprintf(stderr, "worker: %s -> %s\n", #x, cudaGetErrorString(e));       \
            std::abort();                                                                \
        }                                                                                \
    } while (0)

// 2:1 box downscale of an 8-bit luma plane.
__global__ void downscale2x(const uint8_t* in, uint8_t* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w / 2 || y >= h / 2) return;
    int s = in[(2 * y) * w + 2 * x] + in[(2 * y) * w + 2 * x + 1] + in[(2 * y + 1) * w + 2 * x] +
            in[(2 * y + 1) * w + 2 * x + 1];
    out[y * (w / 2) + x] = (uint8_t)((s + 2) / 4);
}

class ScaleWorker {
public:
    ScaleWorker(int w, int h) : w_(w), h_(h), in_bytes_((size_t)w * h), out_bytes_((size_t)w * h / 4) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(&h_in_, in_bytes_));
        CUDA_CHECK(cudaMallocHost(&h_out_, out_bytes_));
        CUDA_CHECK(cudaMalloc(&d_in_, in_bytes_));
        CUDA_CHECK(cudaMalloc(&d_out_, out_bytes_));
    }
    ~ScaleWorker() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_out_);
        cudaFree(d_in_);
        cudaFreeHost(h_out_);
        cudaFreeHost(h_in_);
        cudaStreamDestroy(stream_);
    }

    void submit(const uint8_t* frame) {
        std::memcpy(h_in_, frame, in_bytes_);
        CUDA_CHECK(cudaMemcpyAsync(d_in_, h_in_, in_bytes_, cudaMemcpyHostToDevice, stream_));
        dim3 block(32, 8), grid((w_ / 2 + 31) / 32, (h_ / 2 + 7) / 8);
        downscale2x<<<grid, block, 0, stream_>>>(d_in_, d_out_, w_, h_);
        CUDA_CHECK(cudaMemcpyAsync(h_out_, d_out_, out_bytes_, cudaMemcpyDeviceToHost, stream_));
    }

    void wait() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

    uint64_t checksum() const {
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < out_bytes_; ++i) h = (h ^ h_out_[i]) * 1099511628211ull;
        return h;
    }

private:
    int w_, h_;
    size_t in_bytes_, out_bytes_;
    cudaStream_t stream_ = nullptr;
    uint8_t *h_in_ = nullptr, *h_out_ = nullptr, *d_in_ = nullptr, *d_out_ = nullptr;
};

int main() {
    const int w = 3840, h = 2160, n_workers = 4, n_frames = 16;
    std::vector<uint8_t> frame((size_t)w * h);
    std::vector<std::unique_ptr<ScaleWorker>> workers;
    for (int i = 0; i < n_workers; ++i) workers.emplace_back(new ScaleWorker(w, h));

    uint64_t digest = 0;
    for (int f = 0; f < n_frames; f += n_workers) {
        for (int i = 0; i < n_workers; ++i) {
            std::memset(frame.data(), (f + i) & 0xFF, frame.size());   // "decode" frame f + i
            workers[i]->submit(frame.data());
        }
        for (auto& wk : workers) wk->wait();
        for (auto& wk : workers) digest ^= wk->checksum();
    }
    std::printf("downscaled %d frames, digest %016llx\n", n_frames, (unsigned long long)digest);
    return 0;
}
