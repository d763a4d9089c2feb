// case: A Sobel edge detector's run_sobel helper launches the kernel and then calls a checked cudaDeviceSynchronize without ever calling cudaGetLastError.
// expect: unchecked_cuda_result=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void cuda_ok(cudaError_t status, const char* where) {
    if (status != cudaSuccess) {
        fprintf(stderr, "[%s] %s\n", where, cudaGetErrorString(status));
        exit(EXIT_FAILURE);
    }
}

__global__ void sobel(const float* img, float* mag, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    float gx = -img[(y - 1) * w + x - 1] + img[(y - 1) * w + x + 1]
               - 2.0f * img[y * w + x - 1] + 2.0f * img[y * w + x + 1]
               - img[(y + 1) * w + x - 1] + img[(y + 1) * w + x + 1];
    float gy = -img[(y - 1) * w + x - 1] - 2.0f * img[(y - 1) * w + x] - img[(y - 1) * w + x + 1]
               + img[(y + 1) * w + x - 1] + 2.0f * img[(y + 1) * w + x] + img[(y + 1) * w + x + 1];
    mag[y * w + x] = sqrtf(gx * gx + gy * gy);
}

static void run_sobel(const float* d_img, float* d_mag, int w, int h) {
    dim3 block(32, 8);
    dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
    sobel<<<grid, block>>>(d_img, d_mag, w, h);  // EXPECT: unchecked_cuda_result
    cuda_ok(cudaDeviceSynchronize(), "sobel");
}

int main() {
    const int w = 1024, h = 768;
    const size_t bytes = size_t(w) * h * sizeof(float);
    std::vector<float> img(size_t(w) * h), mag(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img[y * w + x] = (x / 64 + y / 64) % 2 ? 1.0f : 0.0f;

    float *d_img = nullptr, *d_mag = nullptr;
    cuda_ok(cudaMalloc(&d_img, bytes), "malloc img");
    cuda_ok(cudaMalloc(&d_mag, bytes), "malloc mag");
    cuda_ok(cudaMemcpy(d_img, img.data(), bytes, cudaMemcpyHostToDevice), "upload");
    cuda_ok(cudaMemset(d_mag, 0, bytes), "clear borders");

    run_sobel(d_img, d_mag, w, h);

    cuda_ok(cudaMemcpy(mag.data(), d_mag, bytes, cudaMemcpyDeviceToHost), "download");
    int edges = 0;
    for (float m : mag)
        if (m > 0.5f) ++edges;
    printf("%d edge pixels\n", edges);

    cuda_ok(cudaFree(d_mag), "free mag");
    cuda_ok(cudaFree(d_img), "free img");
    return 0;
}
