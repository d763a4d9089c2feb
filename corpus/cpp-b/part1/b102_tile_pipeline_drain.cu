// case: tiled image blur over a std::vector of streams with one pinned tile buffer; every tile's D2H copy is waited for by the always-called drain() helper before the host reads, and the destructor syncs before freeing
// expect: none
#include <cuda_runtime.h>
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

__global__ void box_blur_rows(const float* in, float* out, int width, int rows) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= width || y >= rows) return;
    float acc = 0.0f;
    int cnt = 0;
    for (int dx = -2; dx <= 2; ++dx) {
        int xx = x + dx;
        if (xx >= 0 && xx < width) { acc += in[y * width + xx]; ++cnt; }
    }
    out[y * width + x] = acc / cnt;
}

class TilePipeline {
public:
    TilePipeline(int width, int rows_per_tile, int tiles, int num_streams)
        : width_(width), rows_(rows_per_tile), tiles_(tiles) {
        tile_elems_ = static_cast<size_t>(width_) * rows_;
        streams_.resize(num_streams);
        for (auto& s : streams_) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(&h_image_, tile_elems_ * tiles_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_in_, tile_elems_ * tiles_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_out_, tile_elems_ * tiles_ * sizeof(float)));
    }

    ~TilePipeline() {
        drain();
        cudaFree(d_out_);
        cudaFree(d_in_);
        cudaFreeHost(h_image_);
        for (auto s : streams_) cudaStreamDestroy(s);
    }

    float* host() { return h_image_; }

    void run() {
        dim3 block(128);
        dim3 grid((width_ + 127) / 128, rows_);
        for (int t = 0; t < tiles_; ++t) {
            cudaStream_t s = streams_[t % streams_.size()];
            size_t off = static_cast<size_t>(t) * tile_elems_;
            size_t bytes = tile_elems_ * sizeof(float);
            CUDA_CHECK(cudaMemcpyAsync(d_in_ + off, h_image_ + off, bytes, cudaMemcpyHostToDevice, s));
            box_blur_rows<<<grid, block, 0, s>>>(d_in_ + off, d_out_ + off, width_, rows_);
            CUDA_CHECK(cudaMemcpyAsync(h_image_ + off, d_out_ + off, bytes, cudaMemcpyDeviceToHost, s));
        }
        drain();
    }

    void drain() {
        for (cudaStream_t s : streams_) CUDA_CHECK(cudaStreamSynchronize(s));
    }

private:
    int width_, rows_, tiles_;
    size_t tile_elems_ = 0;
    std::vector<cudaStream_t> streams_;
    float* h_image_ = nullptr;
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
};

int main() {
    TilePipeline pipe(4096, 64, 16, 4);
    float* img = pipe.host();
    for (size_t i = 0; i < size_t(4096) * 64 * 16; ++i) img[i] = static_cast<float>(i % 255);
    pipe.run();
    double checksum = 0.0;
    for (size_t i = 0; i < size_t(4096) * 64 * 16; ++i) checksum += img[i];
    std::printf("checksum %.1f\n", checksum);
    return 0;
}
