// case: Sobel edge filter on pitched images where cudaMemcpy2D uploads the frame into the source image before the kernel reads it, and the edges are copied back with cudaMemcpy2D.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define CUDA_CHECK(x) do { cudaError_t err = (x); if (err != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(err)); abort(); } } while (0)

static const int W = 640;
static const int H = 480;

__global__ void sobel(const float* src, size_t srcPitch, float* dst, size_t dstPitch, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float* out = (float*)((char*)dst + y * dstPitch);
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) { out[x] = 0.f; return; }
    const float* rm = (const float*)((const char*)src + (y - 1) * srcPitch);
    const float* r0 = (const float*)((const char*)src + y * srcPitch);
    const float* rp = (const float*)((const char*)src + (y + 1) * srcPitch);
    float gx = -rm[x - 1] + rm[x + 1] - 2.f * r0[x - 1] + 2.f * r0[x + 1] - rp[x - 1] + rp[x + 1];
    float gy = -rm[x - 1] - 2.f * rm[x] - rm[x + 1] + rp[x - 1] + 2.f * rp[x] + rp[x + 1];
    out[x] = sqrtf(gx * gx + gy * gy);
}

int main()
{
    float* frame = (float*)malloc(W * H * sizeof(float));
    float* edges = (float*)malloc(W * H * sizeof(float));
    for (int i = 0; i < W * H; ++i) frame[i] = (float)((i / W + i % W) % 32);

    float *d_src, *d_dst;
    size_t srcPitch, dstPitch;
    CUDA_CHECK(cudaMallocPitch((void**)&d_src, &srcPitch, W * sizeof(float), H));
    CUDA_CHECK(cudaMallocPitch((void**)&d_dst, &dstPitch, W * sizeof(float), H));

    CUDA_CHECK(cudaMemcpy2D(d_src, srcPitch, frame, W * sizeof(float),
                            W * sizeof(float), H, cudaMemcpyHostToDevice));

    dim3 block(32, 8);
    dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
    sobel<<<grid, block>>>(d_src, srcPitch, d_dst, dstPitch, W, H);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy2D(edges, W * sizeof(float), d_dst, dstPitch,
                            W * sizeof(float), H, cudaMemcpyDeviceToHost));

    double total = 0.0;
    for (int i = 0; i < W * H; ++i) total += edges[i];
    printf("edge energy %.3f\n", total);

    CUDA_CHECK(cudaFree(d_src));
    CUDA_CHECK(cudaFree(d_dst));
    free(frame);
    free(edges);
    return 0;
}
