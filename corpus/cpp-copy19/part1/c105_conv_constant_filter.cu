// case: 2D convolution that keeps a 5x5 filter in __constant__ memory but uploads it with the 7x7 maximum filter size, copying 49 floats into a 25-float symbol
// expect: copy_out_of_bounds=1
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define FILTER_W 5
#define MAX_FILTER_W 7
#define RADIUS (FILTER_W / 2)
#define TILE 16
#define WIDTH 1024
#define HEIGHT 768

__constant__ float c_filter[FILTER_W * FILTER_W];

__global__ void convolve2d(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    for (int fy = -RADIUS; fy <= RADIUS; ++fy) {
        for (int fx = -RADIUS; fx <= RADIUS; ++fx) {
            int sx = min(max(x + fx, 0), w - 1);
            int sy = min(max(y + fy, 0), h - 1);
            acc += in[sy * w + sx] * c_filter[(fy + RADIUS) * FILTER_W + (fx + RADIUS)];
        }
    }
    out[y * w + x] = acc;
}

static void make_gaussian(float *f, int width, float sigma)
{
    float sum = 0.0f;
    int r = width / 2;
    for (int y = -r; y <= r; ++y)
        for (int x = -r; x <= r; ++x) {
            float v = expf(-(x * x + y * y) / (2.0f * sigma * sigma));
            f[(y + r) * width + (x + r)] = v;
            sum += v;
        }
    for (int i = 0; i < width * width; ++i) f[i] /= sum;
}

int main(void)
{
    float h_filter[MAX_FILTER_W * MAX_FILTER_W] = {0};
    make_gaussian(h_filter, FILTER_W, 1.2f);

    size_t bytes = WIDTH * HEIGHT * sizeof(float);
    float *h_img = (float *)malloc(bytes);
    for (int i = 0; i < WIDTH * HEIGHT; ++i) h_img[i] = (float)((i * 31) % 256);

    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_img, bytes, cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_filter, h_filter, MAX_FILTER_W * MAX_FILTER_W * sizeof(float)); // EXPECT: copy_out_of_bounds

    dim3 block(TILE, TILE);
    dim3 grid((WIDTH + TILE - 1) / TILE, (HEIGHT + TILE - 1) / TILE);
    convolve2d<<<grid, block>>>(d_in, d_out, WIDTH, HEIGHT);
    cudaMemcpy(h_img, d_out, bytes, cudaMemcpyDeviceToHost);

    printf("center pixel %f\n", h_img[(HEIGHT / 2) * WIDTH + WIDTH / 2]);

    cudaFree(d_in);
    cudaFree(d_out);
    free(h_img);
    return 0;
}
