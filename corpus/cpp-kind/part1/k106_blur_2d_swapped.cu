// case: a box blur on a pitched device image uploads the std::vector image with cudaMemcpy2D whose destination and source are swapped (vector as destination of a HostToDevice 2D copy).
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void boxBlur(const float* src, size_t sp, float* dst, size_t dp, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    float acc = 0.f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            acc += ((const float*)((const char*)src + (y + dy) * sp))[x + dx];
    ((float*)((char*)dst + y * dp))[x] = acc / 9.f;
}

int main() {
    const int w = 1920, h = 1080;
    const size_t rowBytes = w * sizeof(float);
    std::vector<float> image(w * h), result(w * h);
    for (int i = 0; i < w * h; ++i) image[i] = (float)((i * 7) % 255);

    float *d_src, *d_dst;
    size_t srcPitch, dstPitch;
    cudaMallocPitch(&d_src, &srcPitch, rowBytes, h);
    cudaMallocPitch(&d_dst, &dstPitch, rowBytes, h);

    cudaMemcpy2D(image.data(), rowBytes, d_src, srcPitch, rowBytes, h, // EXPECT: memcpy_kind_mismatch
                 cudaMemcpyHostToDevice);

    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    boxBlur<<<grid, block>>>(d_src, srcPitch, d_dst, dstPitch, w, h);

    cudaMemcpy2D(result.data(), rowBytes, d_dst, dstPitch, rowBytes, h,
                 cudaMemcpyDeviceToHost);
    printf("result center = %f\n", result[(h / 2) * w + w / 2]);

    cudaFree(d_src);
    cudaFree(d_dst);
    return 0;
}
