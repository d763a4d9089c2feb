// case: C-style texture-free bilinear resampler whose global device source pointer is assigned from make_device_image(), a function in the file that cudaMallocs and fills the image
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define SRC_W 800
#define SRC_H 600
#define DST_W 1920
#define DST_H 1080

float *g_src;
float *g_dst;

static float *make_device_image(int w, int h)
{
    float *host = (float *)malloc((size_t)w * h * sizeof(float));
    for (int i = 0; i < w * h; ++i) host[i] = (float)(((i % w) / 40 + (i / w) / 40) & 1);
    float *dev = NULL;
    cudaMalloc((void **)&dev, (size_t)w * h * sizeof(float));
    cudaMemcpy(dev, host, (size_t)w * h * sizeof(float), cudaMemcpyHostToDevice);
    free(host);
    return dev;
}

__global__ void resize_bilinear(const float *src, float *dst)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= DST_W || y >= DST_H) return;
    float sx = (x + 0.5f) * SRC_W / DST_W - 0.5f, sy = (y + 0.5f) * SRC_H / DST_H - 0.5f;
    int x0 = max(0, min(SRC_W - 2, (int)sx)), y0 = max(0, min(SRC_H - 2, (int)sy));
    float fx = sx - x0, fy = sy - y0;
    float a = src[y0 * SRC_W + x0], b = src[y0 * SRC_W + x0 + 1];
    float c = src[(y0 + 1) * SRC_W + x0], d = src[(y0 + 1) * SRC_W + x0 + 1];
    dst[y * DST_W + x] = (1 - fy) * ((1 - fx) * a + fx * b) + fy * ((1 - fx) * c + fx * d);
}

int main(void)
{
    g_src = make_device_image(SRC_W, SRC_H);
    cudaMalloc((void **)&g_dst, DST_W * DST_H * sizeof(float));

    dim3 block(32, 8), grid((DST_W + 31) / 32, (DST_H + 7) / 8);
    resize_bilinear<<<grid, block>>>(g_src, g_dst);

    float *h_dst = (float *)malloc(DST_W * DST_H * sizeof(float));
    cudaMemcpy(h_dst, g_dst, DST_W * DST_H * sizeof(float), cudaMemcpyDeviceToHost);
    printf("dst(100,100) = %f\n", h_dst[100 * DST_W + 100]);

    cudaFree(g_src);
    cudaFree(g_dst);
    free(h_dst);
    return 0;
}
