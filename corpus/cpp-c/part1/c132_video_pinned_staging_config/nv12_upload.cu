// case: a video pre-processor stages NV12 frames in memory chosen by #if USE_PINNED_STAGING, which encoder_config.h sets to 1, so the default build allocates with cudaMallocHost, uploads with cudaMemcpyAsync from pinned memory and releases with the matching cudaFreeHost arm; the host refills the frame only after the stream is synchronized.
// expect: none
#include "encoder_config.h"
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

constexpr size_t kLumaBytes = size_t(ENC_WIDTH) * ENC_HEIGHT;
constexpr size_t kFrameBytes = kLumaBytes * 3 / 2;

__global__ void nv12_to_planar_rgb(const uint8_t* nv12, float* rgb, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float Y = nv12[y * w + x] - 16.f;
    const uint8_t* uv = nv12 + static_cast<size_t>(w) * h + (y / 2) * w + (x & ~1);
    float U = uv[0] - 128.f, V = uv[1] - 128.f;
    size_t plane = static_cast<size_t>(w) * h, p = static_cast<size_t>(y) * w + x;
    rgb[p] = 1.164f * Y + 1.596f * V;
    rgb[plane + p] = 1.164f * Y - 0.392f * U - 0.813f * V;
    rgb[2 * plane + p] = 1.164f * Y + 2.017f * U;
}

static uint8_t* alloc_staging(size_t bytes) {
    uint8_t* p = nullptr;
#if USE_PINNED_STAGING
    CUDA_CHECK(cudaMallocHost(&p, bytes));
#else
    p = static_cast<uint8_t*>(std::malloc(bytes));
#endif
    return p;
}

static void free_staging(uint8_t* p) {
#if USE_PINNED_STAGING
    CUDA_CHECK(cudaFreeHost(p));
#else
    std::free(p);
#endif
}

int main() {
    uint8_t* frame = alloc_staging(kFrameBytes);
    uint8_t* d_frame = nullptr;
    float* d_rgb = nullptr;
    CUDA_CHECK(cudaMalloc(&d_frame, kFrameBytes));
    CUDA_CHECK(cudaMalloc(&d_rgb, kLumaBytes * 3 * sizeof(float)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    dim3 block(32, 8), grid((ENC_WIDTH + 31) / 32, (ENC_HEIGHT + 7) / 8);

    for (int f = 0; f < 30; ++f) {
        std::memset(frame, 16 + f, kLumaBytes);                 // "decoded" luma
        std::memset(frame + kLumaBytes, 128, kFrameBytes - kLumaBytes);
        CUDA_CHECK(cudaMemcpyAsync(d_frame, frame, kFrameBytes, cudaMemcpyHostToDevice, s));
        nv12_to_planar_rgb<<<grid, block, 0, s>>>(d_frame, d_rgb, ENC_WIDTH, ENC_HEIGHT);
        CUDA_CHECK(cudaStreamSynchronize(s));                   // ENC_FRAMES_IN_FLIGHT == 1
    }

    float px = 0.f;
    CUDA_CHECK(cudaMemcpy(&px, d_rgb, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("R(0,0) of last frame: %.2f\n", px);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_rgb));
    CUDA_CHECK(cudaFree(d_frame));
    free_staging(frame);
    return 0;
}
