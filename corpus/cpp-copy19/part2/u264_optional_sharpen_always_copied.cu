// case: an optional sharpen pass is launched only when requested (otherwise the input is copied device-to-device), and the output buffer is copied back unconditionally before it is freed.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

#define IMG_W 2048
#define IMG_H 2048

__global__ void unsharp(const float* in, float* out, int w, int h, float amount)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int xm = max(x - 1, 0), xp = min(x + 1, w - 1), ym = max(y - 1, 0), yp = min(y + 1, h - 1);
    float c = in[y * w + x];
    float blur = (in[y * w + xm] + in[y * w + xp] + in[ym * w + x] + in[yp * w + x] + c) * 0.2f;
    out[y * w + x] = c + amount * (c - blur);
}

int main(int argc, char** argv)
{
    const bool sharpen = argc > 1 && std::strcmp(argv[1], "--sharpen") == 0;
    const size_t bytes = size_t(IMG_W) * IMG_H * sizeof(float);
    std::vector<float> img(IMG_W * IMG_H), out(IMG_W * IMG_H);
    for (int i = 0; i < IMG_W * IMG_H; ++i) img[i] = float((i % IMG_W) ^ (i / IMG_W)) / 2048.f;

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, img.data(), bytes, cudaMemcpyHostToDevice));

    if (sharpen) {
        dim3 block(32, 8), grid(IMG_W / 32, IMG_H / 8);
        unsharp<<<grid, block>>>(d_in, d_out, IMG_W, IMG_H, 0.8f);
        CUDA_CHECK(cudaGetLastError());
    } else {
        CUDA_CHECK(cudaMemcpy(d_out, d_in, bytes, cudaMemcpyDeviceToDevice));
    }

    CUDA_CHECK(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    std::printf("out[1000] = %f (%s)\n", out[1000], sharpen ? "sharpened" : "copy");

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}
