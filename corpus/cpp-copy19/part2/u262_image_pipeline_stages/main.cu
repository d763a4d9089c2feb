// case: a three-stage image pipeline (kernels in stages.cuh) where each stage's output is read by the next stage's kernel and only the final mask is copied back; every intermediate is consumed before it is freed.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "stages.cuh"

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

struct FrameBuffers {
    uchar4* rgba = nullptr;
    float* luma = nullptr;
    float* blurred = nullptr;
    uint8_t* mask = nullptr;

    explicit FrameBuffers(int n) {
        CUDA_CHECK(cudaMalloc(&rgba, n * sizeof(uchar4)));
        CUDA_CHECK(cudaMalloc(&luma, n * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&blurred, n * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&mask, n * sizeof(uint8_t)));
    }
    ~FrameBuffers() {
        cudaFree(rgba);
        cudaFree(luma);
        cudaFree(blurred);
        cudaFree(mask);
    }
};

int main()
{
    const int w = 1280, h = 720, n = w * h;
    std::vector<uchar4> frame(n);
    for (int i = 0; i < n; ++i) frame[i] = make_uchar4(i % 255, (i / w) % 255, 90, 255);
    std::vector<uint8_t> mask(n);

    FrameBuffers fb(n);
    CUDA_CHECK(cudaMemcpy(fb.rgba, frame.data(), n * sizeof(uchar4), cudaMemcpyHostToDevice));

    dim3 block2d(32, 8), grid2d((w + 31) / 32, (h + 7) / 8);
    stages::to_luma<<<(n + 255) / 256, 256>>>(fb.rgba, fb.luma, n);
    stages::blur_h<<<grid2d, block2d>>>(fb.luma, fb.blurred, w, h);
    stages::threshold<<<(n + 255) / 256, 256>>>(fb.blurred, fb.mask, n, 0.5f);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(mask.data(), fb.mask, n * sizeof(uint8_t), cudaMemcpyDeviceToHost));
    size_t on = 0;
    for (uint8_t m : mask) on += m != 0;
    std::printf("foreground pixels: %zu\n", on);
    return 0;
}
