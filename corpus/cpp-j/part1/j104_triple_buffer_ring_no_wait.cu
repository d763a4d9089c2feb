// case: a triple-buffered frame uploader refills its pinned ring slots each frame with no event or stream wait at all, so the host overwrites a slot while its earlier async upload may still read it
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(expr)                                                       \
    do {                                                                       \
        cudaError_t _err = (expr);                                             \
        if (_err != cudaSuccess) {                                             \
            fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(_err)); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

constexpr int kRing = 3;
constexpr int kWidth = 1920;
constexpr int kHeight = 1080;
constexpr size_t kFrameBytes = size_t(kWidth) * kHeight * 4;

__global__ void rgba_to_luma(const uchar4* rgba, uint8_t* luma, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uchar4 p = rgba[i];
        luma[i] = static_cast<uint8_t>(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
    }
}

struct FrameRing {
    uchar4* host[kRing];
    uchar4* dev[kRing];
};

static void decode_frame(uchar4* dst, int frame) {
    for (int i = 0; i < kWidth * kHeight; ++i)
        dst[i] = make_uchar4(frame & 0xff, i & 0xff, (i >> 8) & 0xff, 255);
}

int main() {
    cudaStream_t upload;
    CHECK_CUDA(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));

    FrameRing ring;
    for (int s = 0; s < kRing; ++s) {
        CHECK_CUDA(cudaHostAlloc(&ring.host[s], kFrameBytes, cudaHostAllocDefault));
        CHECK_CUDA(cudaMalloc(&ring.dev[s], kFrameBytes));
    }
    uint8_t* d_luma;
    CHECK_CUDA(cudaMalloc(&d_luma, size_t(kWidth) * kHeight));

    const int frames = 120;
    for (int f = 0; f < frames; ++f) {
        const int slot = f % kRing;
        decode_frame(ring.host[slot], f); // EXPECT: missing_sync
        CHECK_CUDA(cudaMemcpyAsync(ring.dev[slot], ring.host[slot], kFrameBytes,
                                   cudaMemcpyHostToDevice, upload));
        rgba_to_luma<<<(kWidth * kHeight + 255) / 256, 256, 0, upload>>>(
            ring.dev[slot], d_luma, kWidth * kHeight);
        CHECK_CUDA(cudaGetLastError());
    }
    CHECK_CUDA(cudaStreamSynchronize(upload));

    uint8_t* h_luma = (uint8_t*)malloc(size_t(kWidth) * kHeight);
    CHECK_CUDA(cudaMemcpy(h_luma, d_luma, size_t(kWidth) * kHeight, cudaMemcpyDeviceToHost));
    printf("luma[0]=%u\n", h_luma[0]);
    free(h_luma);

    CHECK_CUDA(cudaFree(d_luma));
    for (int s = 0; s < kRing; ++s) {
        CHECK_CUDA(cudaFree(ring.dev[s]));
        CHECK_CUDA(cudaFreeHost(ring.host[s]));
    }
    CHECK_CUDA(cudaStreamDestroy(upload));
    return 0;
}
