// case: a bias-add utility copies up and down with cudaMemcpyDefault, so the direction is taken from the pointers and no stated kind can contradict the cudaMalloc and malloc buffers.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void addBias(float* x, const float* bias, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) x[i] += bias[i % cols];
}

int main() {
    const int rows = 256, cols = 768;
    const size_t xBytes = (size_t)rows * cols * sizeof(float);
    const size_t bBytes = cols * sizeof(float);

    float* h_x = (float*)malloc(xBytes);
    float* h_bias = (float*)malloc(bBytes);
    for (int i = 0; i < rows * cols; ++i) h_x[i] = 0.f;
    for (int c = 0; c < cols; ++c) h_bias[c] = 0.01f * c;

    float *d_x, *d_bias;
    cudaMalloc(&d_x, xBytes);
    cudaMalloc(&d_bias, bBytes);

    // direction taken from the pointers (unified addressing)
    cudaMemcpy(d_x, h_x, xBytes, cudaMemcpyDefault);
    cudaMemcpy(d_bias, h_bias, bBytes, cudaMemcpyDefault);

    addBias<<<(rows * cols + 255) / 256, 256>>>(d_x, d_bias, rows, cols);

    cudaMemcpy(h_x, d_x, xBytes, cudaMemcpyDefault);
    printf("x[0][767] = %f\n", h_x[cols - 1]);

    cudaFree(d_x);
    cudaFree(d_bias);
    free(h_x);
    free(h_bias);
    return 0;
}
