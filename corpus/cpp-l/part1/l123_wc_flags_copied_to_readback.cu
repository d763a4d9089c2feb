// case: a frame-thresholding loop allocates its upload buffer write-combined (host only writes it: correct), but the readback buffer for the per-pixel detections was allocated with the same copied flags, so the host's scan of the detections after each synchronize reads uncached write-combined memory.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

constexpr int kWidth = 1920;
constexpr int kHeight = 1080;
constexpr int kFrames = 30;

__global__ void threshold(const uint8_t* frame, uint8_t* mask, int npx, uint8_t level) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < npx) mask[i] = frame[i] > level ? 1 : 0;
}

static void decode_frame(uint8_t* dst, int npx, int t) {
    for (int i = 0; i < npx; ++i) dst[i] = uint8_t((i * 3 + t * 17) & 0xff);
}

int main() {
    const int npx = kWidth * kHeight;
    const unsigned int staging_flags = cudaHostAllocWriteCombined;

    uint8_t *h_frame, *h_mask, *d_frame, *d_mask;
    CUDA_CHECK(cudaHostAlloc(&h_frame, npx, staging_flags));
    CUDA_CHECK(cudaHostAlloc(&h_mask, npx, staging_flags));
    CUDA_CHECK(cudaMalloc(&d_frame, npx));
    CUDA_CHECK(cudaMalloc(&d_mask, npx));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    long long lit = 0;
    for (int t = 0; t < kFrames; ++t) {
        decode_frame(h_frame, npx, t);
        CUDA_CHECK(cudaMemcpyAsync(d_frame, h_frame, npx, cudaMemcpyHostToDevice, s));
        threshold<<<(npx + 255) / 256, 256, 0, s>>>(d_frame, d_mask, npx, 200);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_mask, d_mask, npx, cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < npx; ++i) lit += h_mask[i]; // EXPECT: write_combined_host_read
    }
    printf("lit pixels over %d frames: %lld\n", kFrames, lit);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_frame));
    CUDA_CHECK(cudaFree(d_mask));
    CUDA_CHECK(cudaFreeHost(h_frame));
    CUDA_CHECK(cudaFreeHost(h_mask));
    return 0;
}
