// case: C-style 2x image downsampler with two faults: the intermediate row buffer d_rows is never allocated (the horizontal pass writes it and the vertical pass reads it), and the readback copies the full-resolution byte count out of the quarter-size output
// expect: copy_out_of_bounds=1, unallocated_pointer=2
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define IN_W 2048
#define IN_H 2048
#define OUT_W (IN_W / 2)
#define OUT_H (IN_H / 2)
#define IN_BYTES (IN_W * IN_H * sizeof(float))
#define OUT_BYTES (OUT_W * OUT_H * sizeof(float))

float *d_in, *d_rows, *d_out;

__global__ void down_h(const float *in, float *rows)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x < OUT_W) rows[y * OUT_W + x] = 0.5f * (in[y * IN_W + 2 * x] + in[y * IN_W + 2 * x + 1]);
}

__global__ void down_v(const float *rows, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x < OUT_W) out[y * OUT_W + x] = 0.5f * (rows[(2 * y) * OUT_W + x] + rows[(2 * y + 1) * OUT_W + x]);
}

int main(void)
{
    float *h_img = (float *)malloc(IN_BYTES);
    for (int i = 0; i < IN_W * IN_H; ++i) h_img[i] = (float)((i % IN_W) & 0xff);

    cudaMalloc((void **)&d_in, IN_BYTES);
    cudaMalloc((void **)&d_out, OUT_BYTES);
    cudaMemcpy(d_in, h_img, IN_BYTES, cudaMemcpyHostToDevice);

    down_h<<<dim3((OUT_W + 255) / 256, IN_H), 256>>>(d_in, d_rows); // EXPECT: unallocated_pointer
    down_v<<<dim3((OUT_W + 255) / 256, OUT_H), 256>>>(d_rows, d_out); // EXPECT: unallocated_pointer
    cudaDeviceSynchronize();

    cudaMemcpy(h_img, d_out, IN_BYTES, cudaMemcpyDeviceToHost); // EXPECT: copy_out_of_bounds
    printf("out(10,10) = %f\n", h_img[10 * OUT_W + 10]);

    cudaFree(d_in);
    cudaFree(d_rows);
    cudaFree(d_out);
    free(h_img);
    return 0;
}
