// case: a Sobel edge detector allocates pitched source and gradient images; when the 2D upload fails it frees only the source before returning
// expect: device_memory_leak=1
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

static const int kW = 1280;
static const int kH = 720;

__global__ void sobel(const uint8_t* src, size_t src_pitch, float* dst, size_t dst_pitch,
                      int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    auto px = [&](int xx, int yy) { return (float)src[yy * src_pitch + xx]; };
    float gx = -px(x - 1, y - 1) - 2 * px(x - 1, y) - px(x - 1, y + 1)
               + px(x + 1, y - 1) + 2 * px(x + 1, y) + px(x + 1, y + 1);
    float gy = -px(x - 1, y - 1) - 2 * px(x, y - 1) - px(x + 1, y - 1)
               + px(x - 1, y + 1) + 2 * px(x, y + 1) + px(x + 1, y + 1);
    float* row = (float*)((char*)dst + y * dst_pitch);
    row[x] = sqrtf(gx * gx + gy * gy);
}

bool edge_magnitude(const uint8_t* host_src, float* host_dst, int w, int h) {
    uint8_t* d_src = nullptr;
    float* d_dst = nullptr;
    size_t src_pitch = 0, dst_pitch = 0;

    if (cudaMallocPitch((void**)&d_src, &src_pitch, w * sizeof(uint8_t), h) != cudaSuccess)
        return false;
    if (cudaMallocPitch((void**)&d_dst, &dst_pitch, w * sizeof(float), h) != cudaSuccess) { // EXPECT: device_memory_leak
        cudaFree(d_src);
        return false;
    }
    cudaMemset2D(d_dst, dst_pitch, 0, w * sizeof(float), h);

    if (cudaMemcpy2D(d_src, src_pitch, host_src, w, w, h, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "edge_magnitude: upload failed\n");
        cudaFree(d_src);
        return false;
    }

    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    sobel<<<grid, block>>>(d_src, src_pitch, d_dst, dst_pitch, w, h);

    cudaError_t err = cudaMemcpy2D(host_dst, w * sizeof(float), d_dst, dst_pitch,
                                   w * sizeof(float), h, cudaMemcpyDeviceToHost);
    cudaFree(d_src);
    cudaFree(d_dst);
    return err == cudaSuccess;
}

int main() {
    std::vector<uint8_t> img(kW * kH);
    std::vector<float> mag(kW * kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x)
            img[y * kW + x] = (x > kW / 2) ? 200 : 30;

    if (!edge_magnitude(img.data(), mag.data(), kW, kH)) return 1;

    int edges = 0;
    for (float m : mag) edges += (m > 100.f);
    printf("%d edge pixels\n", edges);
    return 0;
}
