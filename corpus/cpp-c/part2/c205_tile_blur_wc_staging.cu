// case: an image pipeline fills a write-combined staging buffer from the decoded image (host writes only), uploads it, blurs the tile and reads the result from a separate default-pinned buffer after synchronizing
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <vector>

#define CK(call)                                                                    \
    do {                                                                            \
        cudaError_t rc = (call);                                                    \
        if (rc != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorName(rc)); \
            std::abort();                                                           \
        }                                                                           \
    } while (0)

__global__ void box_blur3(const uint8_t* in, uint8_t* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int acc = 0, n = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < w && yy >= 0 && yy < h) { acc += in[yy * w + xx]; ++n; }
        }
    out[y * w + x] = (uint8_t)(acc / n);
}

class TileBlurrer {
public:
    explicit TileBlurrer(int tile) : tile_(tile), bytes_((size_t)tile * tile) {
        CK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        // upload-only staging: write-combined is the right choice here
        CK(cudaHostAlloc(&staging_, bytes_, cudaHostAllocWriteCombined));
        CK(cudaHostAlloc(&result_, bytes_, cudaHostAllocDefault));
        CK(cudaMalloc(&d_in_, bytes_));
        CK(cudaMalloc(&d_out_, bytes_));
    }
    ~TileBlurrer() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_out_);
        cudaFree(d_in_);
        cudaFreeHost(result_);
        cudaFreeHost(staging_);
        cudaStreamDestroy(stream_);
    }

    // Blurs the tile at (tx, ty) of a grey image and writes it back into dst.
    void process(const std::vector<uint8_t>& img, std::vector<uint8_t>& dst, int width, int tx, int ty) {
        for (int r = 0; r < tile_; ++r)
            std::memcpy(staging_ + (size_t)r * tile_, img.data() + (size_t)(ty + r) * width + tx, tile_);
        CK(cudaMemcpyAsync(d_in_, staging_, bytes_, cudaMemcpyHostToDevice, stream_));
        dim3 block(16, 16), grid((tile_ + 15) / 16, (tile_ + 15) / 16);
        box_blur3<<<grid, block, 0, stream_>>>(d_in_, d_out_, tile_, tile_);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(result_, d_out_, bytes_, cudaMemcpyDeviceToHost, stream_));
        CK(cudaStreamSynchronize(stream_));
        for (int r = 0; r < tile_; ++r)
            std::memcpy(dst.data() + (size_t)(ty + r) * width + tx, result_ + (size_t)r * tile_, tile_);
    }

private:
    int tile_;
    size_t bytes_;
    cudaStream_t stream_ = nullptr;
    uint8_t* staging_ = nullptr;
    uint8_t* result_ = nullptr;
    uint8_t* d_in_ = nullptr;
    uint8_t* d_out_ = nullptr;
};

int main() {
    const int width = 4096, height = 4096, tile = 512;
    std::vector<uint8_t> img((size_t)width * height), out((size_t)width * height);
    for (size_t i = 0; i < img.size(); ++i) img[i] = (uint8_t)((i * 2654435761u) >> 24);

    TileBlurrer blur(tile);
    for (int ty = 0; ty < height; ty += tile)
        for (int tx = 0; tx < width; tx += tile) blur.process(img, out, width, tx, ty);

    unsigned long long sum = 0;
    for (uint8_t v : out) sum += v;
    std::printf("blurred %dx%d, mean %.2f\n", width, height, (double)sum / out.size());
    return 0;
}
