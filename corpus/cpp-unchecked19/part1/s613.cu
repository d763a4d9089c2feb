// case: An RGB-to-grayscale converter wraps every runtime call in CUDA_CHECK and checks its launch with CUDA_CHECK(cudaGetLastError()) before synchronizing.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t err = (call);                                              \
        if (err != cudaSuccess) {                                              \
            fprintf(stderr, "CUDA error at %s:%d: %s\n", __FILE__, __LINE__,   \
                    cudaGetErrorString(err));                                  \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

struct Pixel {
    unsigned char r, g, b;
};

__global__ void rgb_to_gray(const Pixel* rgb, unsigned char* gray, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Pixel p = rgb[i];
    gray[i] = (unsigned char)(0.299f * p.r + 0.587f * p.g + 0.114f * p.b);
}

int main() {
    const int w = 3840, h = 2160, n = w * h;
    std::vector<Pixel> rgb(n);
    for (int i = 0; i < n; ++i) {
        rgb[i].r = (unsigned char)(i % 256);
        rgb[i].g = (unsigned char)((i / w) % 256);
        rgb[i].b = 128;
    }
    std::vector<unsigned char> gray(n);

    CUDA_CHECK(cudaSetDevice(0));
    Pixel* d_rgb = nullptr;
    unsigned char* d_gray = nullptr;
    CUDA_CHECK(cudaMalloc(&d_rgb, n * sizeof(Pixel)));
    CUDA_CHECK(cudaMalloc(&d_gray, n));
    CUDA_CHECK(cudaMemcpy(d_rgb, rgb.data(), n * sizeof(Pixel), cudaMemcpyHostToDevice));

    rgb_to_gray<<<(n + 255) / 256, 256>>>(d_rgb, d_gray, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(gray.data(), d_gray, n, cudaMemcpyDeviceToHost));

    unsigned long sum = 0;
    for (unsigned char g : gray) sum += g;
    printf("mean gray level: %.2f\n", double(sum) / n);

    CUDA_CHECK(cudaFree(d_gray));
    CUDA_CHECK(cudaFree(d_rgb));
    return 0;
}
