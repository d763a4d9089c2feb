// case: a Mandelbrot renderer launches on the legacy default stream and reads the image back with a synchronous cudaMemcpy, which is ordered after the kernel, before writing a PGM header and checksum
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void mandelbrot(unsigned char* img, int w, int h, int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float cx = -2.0f + 3.0f * px / w, cy = -1.2f + 2.4f * py / h;
    float x = 0.f, y = 0.f;
    int it = 0;
    while (x * x + y * y < 4.f && it < max_iter) {
        float xt = x * x - y * y + cx;
        y = 2.f * x * y + cy;
        x = xt;
        ++it;
    }
    img[py * w + px] = (unsigned char)(255 * it / max_iter);
}

int main() {
    const int w = 4096, h = 3072;
    unsigned char* d_img = nullptr;
    CUDA_CHECK(cudaMalloc(&d_img, (size_t)w * h));

    dim3 block(32, 8);
    dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
    mandelbrot<<<grid, block>>>(d_img, w, h, 256);
    CUDA_CHECK(cudaGetLastError());

    std::vector<unsigned char> img((size_t)w * h);
    CUDA_CHECK(cudaMemcpy(img.data(), d_img, img.size(), cudaMemcpyDeviceToHost));

    unsigned long long checksum = 0;
    size_t inside = 0;
    for (unsigned char v : img) {
        checksum = checksum * 31 + v;
        inside += (v == 255);
    }
    printf("P5 %d %d 255 -- checksum %llx, %zu pixels in the set\n", w, h, checksum, inside);
    CUDA_CHECK(cudaFree(d_img));
    return 0;
}
