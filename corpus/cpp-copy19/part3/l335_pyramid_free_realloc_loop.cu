// case: an image-pyramid builder frees the previous level's device buffer before allocating the next, smaller level in each iteration, and frees the last level after the loop
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t st = (x);                                                  \
        if (st != cudaSuccess) {                                               \
            fprintf(stderr, "%s failed at %s:%d: %s\n", #x, __FILE__, __LINE__, \
                    cudaGetErrorString(st));                                   \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

#define BASE_W 4096
#define BASE_H 4096
#define LEVELS 6

__global__ void downsample2x(const float* src, float* dst, int dw, int dh) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dw || y >= dh) return;
    int sw = dw * 2;
    const float* r0 = src + (2 * y) * sw;
    const float* r1 = r0 + sw;
    dst[y * dw + x] = 0.25f * (r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1]);
}

int main() {
    std::vector<float> base(BASE_W * BASE_H);
    for (int i = 0; i < BASE_W * BASE_H; ++i) base[i] = (float)(i % BASE_W) / BASE_W;

    float* d_prev = nullptr;
    float* d_level = nullptr;
    CUDA_CHECK(cudaMalloc(&d_prev, sizeof(float) * BASE_W * BASE_H));
    CUDA_CHECK(cudaMemcpy(d_prev, base.data(), sizeof(float) * BASE_W * BASE_H,
                          cudaMemcpyHostToDevice));

    int w = BASE_W, h = BASE_H;
    for (int level = 1; level < LEVELS; ++level) {
        int nw = w / 2, nh = h / 2;
        CUDA_CHECK(cudaMalloc(&d_level, sizeof(float) * nw * nh));
        dim3 block(16, 16), grid((nw + 15) / 16, (nh + 15) / 16);
        downsample2x<<<grid, block>>>(d_prev, d_level, nw, nh);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());

        CUDA_CHECK(cudaFree(d_prev));
        d_prev = d_level;
        d_level = nullptr;
        w = nw;
        h = nh;
    }

    std::vector<float> top((size_t)w * h);
    CUDA_CHECK(cudaMemcpy(top.data(), d_prev, sizeof(float) * w * h, cudaMemcpyDeviceToHost));
    printf("top level %dx%d, first pixel %f\n", w, h, top[0]);
    CUDA_CHECK(cudaFree(d_prev));
    return 0;
}
