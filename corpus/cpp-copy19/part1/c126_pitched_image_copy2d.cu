// case: Sobel edge detector over a pitched device image, moved with cudaMemcpy2D in both directions (2D copies are out of scope) and cleared with an exact-size memset of the output
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s\n", cudaGetErrorString(e));            \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int W = 1000;   // deliberately not a multiple of the pitch alignment
constexpr int H = 750;

__global__ void sobel(const float *in, size_t in_pitch, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    auto at = [&](int xx, int yy) {
        return reinterpret_cast<const float *>(reinterpret_cast<const char *>(in) + yy * in_pitch)[xx];
    };
    float gx = -at(x - 1, y - 1) - 2 * at(x - 1, y) - at(x - 1, y + 1)
               + at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1);
    float gy = -at(x - 1, y - 1) - 2 * at(x, y - 1) - at(x + 1, y - 1)
               + at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1);
    out[y * w + x] = sqrtf(gx * gx + gy * gy);
}

int main()
{
    std::vector<float> img(W * H), edges(W * H);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) img[y * W + x] = ((x / 50 + y / 50) & 1) ? 1.0f : 0.0f;

    float *d_img, *d_edges;
    size_t pitch = 0;
    CUDA_CHECK(cudaMallocPitch(&d_img, &pitch, W * sizeof(float), H));
    CUDA_CHECK(cudaMalloc(&d_edges, W * H * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_edges, 0, W * H * sizeof(float)));

    CUDA_CHECK(cudaMemcpy2D(d_img, pitch, img.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));

    dim3 block(16, 16), grid((W + 15) / 16, (H + 15) / 16);
    sobel<<<grid, block>>>(d_img, pitch, d_edges, W, H);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy2D(edges.data(), W * sizeof(float), d_edges, W * sizeof(float), W * sizeof(float), H, cudaMemcpyDeviceToHost));

    int strong = 0;
    for (float v : edges) strong += v > 1.0f;
    std::printf("strong edge pixels: %d\n", strong);

    CUDA_CHECK(cudaFree(d_img));
    CUDA_CHECK(cudaFree(d_edges));
    return 0;
}
