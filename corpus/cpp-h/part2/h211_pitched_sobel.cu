// case: Sobel edge filter uploads a frame from a std::vector into pitched device memory with cudaMemcpy2D but passes cudaMemcpyDeviceToHost (kind pasted from the readback); the readback copy below is correct.
// expect: memcpy_kind_mismatch=1
#include <cuda_runtime.h>
#include <vector>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

__global__ void sobel(const uint8_t* src, size_t src_pitch, uint8_t* dst, size_t dst_pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    auto at = [&](int xx, int yy) { return int(src[yy * src_pitch + xx]); };
    int gx = -at(x - 1, y - 1) - 2 * at(x - 1, y) - at(x - 1, y + 1)
             + at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1);
    int gy = -at(x - 1, y - 1) - 2 * at(x, y - 1) - at(x + 1, y - 1)
             + at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1);
    int m = abs(gx) + abs(gy);
    dst[y * dst_pitch + x] = uint8_t(m > 255 ? 255 : m);
}

class EdgeFilter {
public:
    EdgeFilter(int w, int h) : w_(w), h_(h) {
        cudaMallocPitch(&d_src_, &src_pitch_, w_, h_);
        cudaMallocPitch(&d_dst_, &dst_pitch_, w_, h_);
        cudaMemset2D(d_dst_, dst_pitch_, 0, w_, h_);
    }
    ~EdgeFilter() { cudaFree(d_src_); cudaFree(d_dst_); }

    std::vector<uint8_t> apply(const std::vector<uint8_t>& frame) {
        std::vector<uint8_t> edges(size_t(w_) * h_);
        cudaMemcpy2D(d_src_, src_pitch_, frame.data(), w_, w_, h_, cudaMemcpyDeviceToHost);
        dim3 block(32, 8), grid((w_ + 31) / 32, (h_ + 7) / 8);
        sobel<<<grid, block>>>(d_src_, src_pitch_, d_dst_, dst_pitch_, w_, h_);
        cudaMemcpy2D(edges.data(), w_, d_dst_, dst_pitch_, w_, h_, cudaMemcpyDeviceToHost);
        return edges;
    }

private:
    int w_, h_;
    uint8_t* d_src_ = nullptr;
    uint8_t* d_dst_ = nullptr;
    size_t src_pitch_ = 0, dst_pitch_ = 0;
};

int main() {
    const int w = 1920, h = 1080;
    std::vector<uint8_t> frame(size_t(w) * h);
    for (size_t i = 0; i < frame.size(); ++i) frame[i] = uint8_t((i % w) ^ (i / w));
    EdgeFilter f(w, h);
    std::vector<uint8_t> e = f.apply(frame);
    size_t strong = 0;
    for (uint8_t v : e) strong += v > 128;
    printf("strong edges: %zu\n", strong);
    return 0;
}
