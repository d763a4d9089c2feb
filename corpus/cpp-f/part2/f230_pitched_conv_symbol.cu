// case: A 5x5 image convolution uploads its filter with cudaMemcpyToSymbol, moves the pitched image with blocking cudaMemcpy2D from a std::vector, and streams a second image with cudaMemcpy2DAsync from cudaMallocHost memory, synchronizing before every host read.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define IMG_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

constexpr int R = 2;
__constant__ float c_filter[(2 * R + 1) * (2 * R + 1)];

__global__ void conv5x5(const float* __restrict__ src, size_t src_pitch, float* __restrict__ dst,
                        size_t dst_pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.f;
    for (int dy = -R; dy <= R; ++dy) {
        int yy = min(max(y + dy, 0), h - 1);
        const float* row = reinterpret_cast<const float*>(reinterpret_cast<const char*>(src) + yy * src_pitch);
        for (int dx = -R; dx <= R; ++dx) acc += c_filter[(dy + R) * (2 * R + 1) + dx + R] * row[min(max(x + dx, 0), w - 1)];
    }
    reinterpret_cast<float*>(reinterpret_cast<char*>(dst) + y * dst_pitch)[x] = acc;
}

int main() {
    const int w = 4000, h = 3000;
    float filter[(2 * R + 1) * (2 * R + 1)];
    float sum = 0.f;
    for (int i = 0; i < 25; ++i) { filter[i] = float(1 + (i % 5 == 2) + (i / 5 == 2)); sum += filter[i]; }
    for (float& f : filter) f /= sum;
    IMG_CHECK(cudaMemcpyToSymbol(c_filter, filter, sizeof(filter)));

    float *d_src, *d_dst;
    size_t src_pitch, dst_pitch;
    IMG_CHECK(cudaMallocPitch(&d_src, &src_pitch, w * sizeof(float), h));
    IMG_CHECK(cudaMallocPitch(&d_dst, &dst_pitch, w * sizeof(float), h));
    IMG_CHECK(cudaDeviceSynchronize());

    std::vector<float> img(size_t(w) * h), out(size_t(w) * h);
    for (size_t i = 0; i < img.size(); ++i) img[i] = float((i / w + i % w) % 255);
    IMG_CHECK(cudaMemcpy2D(d_src, src_pitch, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    conv5x5<<<grid, block>>>(d_src, src_pitch, d_dst, dst_pitch, w, h);
    IMG_CHECK(cudaMemcpy2D(out.data(), w * sizeof(float), d_dst, dst_pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    printf("blocking path: out[center] = %.3f\n", out[size_t(h / 2) * w + w / 2]);

    cudaStream_t s;
    IMG_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *h_in, *h_out;
    IMG_CHECK(cudaMallocHost(&h_in, size_t(w) * h * sizeof(float)));
    IMG_CHECK(cudaMallocHost(&h_out, size_t(w) * h * sizeof(float)));
    for (size_t i = 0; i < size_t(w) * h; ++i) h_in[i] = float((i * 7) % 255);
    IMG_CHECK(cudaMemcpy2DAsync(d_src, src_pitch, h_in, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice, s));
    conv5x5<<<grid, block, 0, s>>>(d_src, src_pitch, d_dst, dst_pitch, w, h);
    IMG_CHECK(cudaMemcpy2DAsync(h_out, w * sizeof(float), d_dst, dst_pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost, s));
    IMG_CHECK(cudaStreamSynchronize(s));
    double mean = 0.0;
    for (size_t i = 0; i < size_t(w) * h; ++i) mean += h_out[i];
    printf("async path: mean %.3f\n", mean / (double(w) * h));

    IMG_CHECK(cudaStreamDestroy(s));
    cudaFreeHost(h_in); cudaFreeHost(h_out);
    cudaFree(d_src); cudaFree(d_dst);
    return 0;
}
