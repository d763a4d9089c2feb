// case: Otsu thresholding reads a 256-bin histogram right after a cudaMemcpyAsync into a pageable std::vector; correct, since a device-to-pageable async copy returns only once it has completed, and the 1 KiB constant-size copy is under the pageable threshold; the pinned input is freed after a stream synchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(expr)                                                               \
    do {                                                                               \
        cudaError_t e_ = (expr);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_));    \
            std::abort();                                                              \
        }                                                                              \
    } while (0)

constexpr int kWidth = 1920;
constexpr int kHeight = 1080;
constexpr int kBins = 256;
constexpr size_t kPixels = size_t(kWidth) * kHeight;

__global__ void histogram_shared(const uint8_t* __restrict__ img, size_t n, unsigned int* hist) {
    __shared__ unsigned int local[kBins];
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        atomicAdd(&local[img[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) atomicAdd(&hist[i], local[i]);
}

__global__ void threshold(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, size_t n, int t) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = in[i] > t ? 255 : 0;
}

static int otsu_threshold(const std::vector<unsigned int>& hist, size_t total) {
    double sum_all = 0.0;
    for (int i = 0; i < kBins; ++i) sum_all += double(i) * hist[i];
    double sum_bg = 0.0, w_bg = 0.0, best_var = -1.0;
    int best_t = 0;
    for (int t = 0; t < kBins; ++t) {
        w_bg += hist[t];
        if (w_bg == 0) continue;
        double w_fg = double(total) - w_bg;
        if (w_fg == 0) break;
        sum_bg += double(t) * hist[t];
        double m_bg = sum_bg / w_bg, m_fg = (sum_all - sum_bg) / w_fg;
        double var = w_bg * w_fg * (m_bg - m_fg) * (m_bg - m_fg);
        if (var > best_var) { best_var = var; best_t = t; }
    }
    return best_t;
}

int main() {
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    uint8_t* h_img = nullptr;
    CHECK_CUDA(cudaMallocHost(&h_img, kPixels));
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x)
            h_img[size_t(y) * kWidth + x] = uint8_t((x * 7 + y * 3) % 200 + ((x / 64) % 2) * 40);

    uint8_t *d_img = nullptr, *d_mask = nullptr;
    unsigned int* d_hist = nullptr;
    CHECK_CUDA(cudaMalloc(&d_img, kPixels));
    CHECK_CUDA(cudaMalloc(&d_mask, kPixels));
    CHECK_CUDA(cudaMalloc(&d_hist, kBins * sizeof(unsigned int)));

    CHECK_CUDA(cudaMemcpyAsync(d_img, h_img, kPixels, cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaMemsetAsync(d_hist, 0, kBins * sizeof(unsigned int), stream));
    histogram_shared<<<240, 256, 0, stream>>>(d_img, kPixels, d_hist);
    CHECK_CUDA(cudaGetLastError());

    // Small readback into pageable memory: the call returns after the copy is done.
    std::vector<unsigned int> hist(kBins);
    CHECK_CUDA(cudaMemcpyAsync(hist.data(), d_hist, kBins * sizeof(unsigned int),
                               cudaMemcpyDeviceToHost, stream));
    int t = otsu_threshold(hist, kPixels);
    std::printf("otsu threshold = %d\n", t);

    threshold<<<unsigned((kPixels + 255) / 256), 256, 0, stream>>>(d_img, d_mask, kPixels, t);
    CHECK_CUDA(cudaMemcpyAsync(h_img, d_mask, kPixels, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));

    size_t fg = 0;
    for (size_t i = 0; i < kPixels; ++i) fg += h_img[i] != 0;
    std::printf("foreground pixels: %zu of %zu\n", fg, kPixels);

    CHECK_CUDA(cudaFree(d_hist));
    CHECK_CUDA(cudaFree(d_mask));
    CHECK_CUDA(cudaFree(d_img));
    CHECK_CUDA(cudaFreeHost(h_img));
    CHECK_CUDA(cudaStreamDestroy(stream));
    return 0;
}
