// case: an image decoder allocates its pinned input and output frames with cudaMallocHost but its generic cleanup routine releases both with free()
// expect: mismatched_free=2
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void yuv_to_gray(const uint8_t* yuv, uint8_t* gray, int npix) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < npix) gray[i] = yuv[i];
}

struct DecoderFrames {
    uint8_t* yuv_host;
    uint8_t* gray_host;
    uint8_t* yuv_dev;
    uint8_t* gray_dev;
};

static void frames_alloc(DecoderFrames& f, size_t yuv_bytes, size_t gray_bytes) {
    CUDA_CHECK(cudaMallocHost(&f.yuv_host, yuv_bytes));
    CUDA_CHECK(cudaMallocHost(&f.gray_host, gray_bytes));
    CUDA_CHECK(cudaMalloc(&f.yuv_dev, yuv_bytes));
    CUDA_CHECK(cudaMalloc(&f.gray_dev, gray_bytes));
}

static void frames_release(DecoderFrames& f) {
    cudaFree(f.gray_dev);
    cudaFree(f.yuv_dev);
    free(f.gray_host); // EXPECT: mismatched_free
    free(f.yuv_host); // EXPECT: mismatched_free
}

int main() {
    const int w = 1280, h = 720, npix = w * h;
    const size_t yuv_bytes = (size_t)npix * 3 / 2;
    DecoderFrames f;
    frames_alloc(f, yuv_bytes, npix);
    for (size_t i = 0; i < yuv_bytes; ++i) f.yuv_host[i] = (uint8_t)(i * 13);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaMemcpyAsync(f.yuv_dev, f.yuv_host, yuv_bytes, cudaMemcpyHostToDevice, s));
    yuv_to_gray<<<(npix + 255) / 256, 256, 0, s>>>(f.yuv_dev, f.gray_dev, npix);
    CUDA_CHECK(cudaMemcpyAsync(f.gray_host, f.gray_dev, npix, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    unsigned long long sum = 0;
    for (int i = 0; i < npix; ++i) sum += f.gray_host[i];
    printf("mean gray %.2f\n", (double)sum / npix);

    CUDA_CHECK(cudaStreamDestroy(s));
    frames_release(f);
    return 0;
}
