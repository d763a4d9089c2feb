// case: A keypoint-descriptor extractor downloads its descriptors with destination and source swapped (a cudaMalloc'd destination under cudaMemcpyDeviceToHost) and downloads its orientation histogram with the cudaMemcpyHostToDevice kind pasted from the upload above it; memcpy_kind_mismatch at both copies.
// expect: memcpy_kind_mismatch=2
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kW = 1024, kH = 768;
constexpr int kPatch = 8;
constexpr int kBins = 36;
constexpr int kKeypoints = (kW / kPatch) * (kH / kPatch);

// One 32-bit binary descriptor per 8x8 patch (BRIEF-like pairwise tests) and a
// global histogram of gradient orientations.
__global__ void describe_patches(const uint8_t* __restrict__ img, uint32_t* __restrict__ desc,
                                 unsigned int* __restrict__ orient_hist) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= kW / kPatch || py >= kH / kPatch) return;
    int x0 = px * kPatch, y0 = py * kPatch;
    uint32_t bits = 0;
    for (int t = 0; t < 32; ++t) {
        int a = (t * 7) % 64, b = (t * 13 + 5) % 64;
        uint8_t va = img[(y0 + a / kPatch) * kW + x0 + a % kPatch];
        uint8_t vb = img[(y0 + b / kPatch) * kW + x0 + b % kPatch];
        bits |= uint32_t(va < vb) << t;
    }
    desc[py * (kW / kPatch) + px] = bits;
    int gx = int(img[(y0 + 4) * kW + x0 + 7]) - int(img[(y0 + 4) * kW + x0]);
    int gy = int(img[(y0 + 7) * kW + x0 + 4]) - int(img[y0 * kW + x0 + 4]);
    float angle = atan2f(float(gy), float(gx)) + 3.14159265f;
    atomicAdd(&orient_hist[min(int(angle / (2.0f * 3.14159265f) * kBins), kBins - 1)], 1u);
}

int main() {
    std::vector<uint8_t> image(size_t(kW) * kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) image[size_t(y) * kW + x] = uint8_t((x * x / 97 + y * 3) & 0xFF);

    uint8_t* d_img = nullptr;
    uint32_t* d_desc = nullptr;
    unsigned int* d_hist = nullptr;
    CUDA_CHECK(cudaMalloc(&d_img, image.size()));
    CUDA_CHECK(cudaMalloc(&d_desc, kKeypoints * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&d_hist, kBins * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemcpy(d_img, image.data(), image.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_hist, 0, kBins * sizeof(unsigned int)));

    dim3 block(16, 16), grid((kW / kPatch + 15) / 16, (kH / kPatch + 15) / 16);
    describe_patches<<<grid, block>>>(d_img, d_desc, d_hist);
    CUDA_CHECK(cudaGetLastError());

    std::vector<uint32_t> descriptors(kKeypoints);
    std::vector<unsigned int> hist(kBins);
    CUDA_CHECK(cudaMemcpy(d_desc, descriptors.data(), kKeypoints * sizeof(uint32_t), cudaMemcpyDeviceToHost));  // EXPECT: memcpy_kind_mismatch
    CUDA_CHECK(cudaMemcpy(hist.data(), d_hist, kBins * sizeof(unsigned int), cudaMemcpyHostToDevice));  // EXPECT: memcpy_kind_mismatch

    int dominant = 0;
    for (int b = 1; b < kBins; ++b)
        if (hist[b] > hist[dominant]) dominant = b;
    int popcount = 0;
    for (uint32_t d : descriptors) popcount += __builtin_popcount(d);
    std::printf("dominant orientation bin %d, mean descriptor weight %.2f\n", dominant,
                double(popcount) / kKeypoints);

    CUDA_CHECK(cudaFree(d_hist));
    CUDA_CHECK(cudaFree(d_desc));
    CUDA_CHECK(cudaFree(d_img));
    return 0;
}
