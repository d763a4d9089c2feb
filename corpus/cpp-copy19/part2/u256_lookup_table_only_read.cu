// case: a colour-map kernel reads an uploaded palette buffer that no kernel writes (only a write makes output) and its RGB output is copied back; the palette is freed after only being read.
// expect: none
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK(x) { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } }

#define W 1024
#define H 1024
#define PALETTE 256

__global__ void apply_colormap(const float* field, const uchar3* palette, uchar3* rgb, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = (field[i] - lo) / (hi - lo);
        int k = (int)(fminf(fmaxf(t, 0.f), 1.f) * (PALETTE - 1));
        rgb[i] = palette[k];
    }
}

int main(void)
{
    float* h_field = (float*)malloc(W * H * sizeof(float));
    uchar3* h_rgb = (uchar3*)malloc(W * H * sizeof(uchar3));
    uchar3 h_palette[PALETTE];
    for (int k = 0; k < PALETTE; k++) h_palette[k] = make_uchar3(k, 255 - k, (k * 3) % 256);
    for (int i = 0; i < W * H; i++) h_field[i] = (float)((i % W) * (i / W)) / (W * H);

    float* d_field;
    uchar3 *d_palette, *d_rgb;
    CUDA_CHECK(cudaMalloc((void**)&d_field, W * H * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void**)&d_palette, sizeof(h_palette)));
    CUDA_CHECK(cudaMalloc((void**)&d_rgb, W * H * sizeof(uchar3)));
    CUDA_CHECK(cudaMemcpy(d_field, h_field, W * H * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_palette, h_palette, sizeof(h_palette), cudaMemcpyHostToDevice));

    apply_colormap<<<(W * H + 255) / 256, 256>>>(d_field, d_palette, d_rgb, W * H, 0.0f, 1.0f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_rgb, d_rgb, W * H * sizeof(uchar3), cudaMemcpyDeviceToHost));
    printf("pixel(512,512) = (%d, %d, %d)\n", h_rgb[512 * W + 512].x, h_rgb[512 * W + 512].y, h_rgb[512 * W + 512].z);

    CUDA_CHECK(cudaFree(d_field));
    CUDA_CHECK(cudaFree(d_palette));
    CUDA_CHECK(cudaFree(d_rgb));
    free(h_field);
    free(h_rgb);
    return 0;
}
