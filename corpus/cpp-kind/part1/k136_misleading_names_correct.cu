// case: a layer-norm benchmark whose variable names lie (h_scratch is cudaMalloc'd, devResult is malloc'd) but whose copy kinds match where each buffer was really allocated.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void layerNorm(const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x;
    if (r >= rows || threadIdx.x != 0) return;
    float mean = 0.f, var = 0.f;
    for (int c = 0; c < cols; ++c) mean += x[r * cols + c];
    mean /= cols;
    for (int c = 0; c < cols; ++c) { float d = x[r * cols + c] - mean; var += d * d; }
    float inv = rsqrtf(var / cols + 1e-5f);
    for (int c = 0; c < cols; ++c) y[r * cols + c] = (x[r * cols + c] - mean) * inv;
}

int main() {
    const int rows = 128, cols = 1024;
    const size_t bytes = (size_t)rows * cols * sizeof(float);

    float* input = (float*)malloc(bytes);      // host
    float* devResult = (float*)malloc(bytes);  // host, despite the name
    for (int i = 0; i < rows * cols; ++i) input[i] = (float)(i % cols);

    float *d_x, *d_y, *h_scratch;              // h_scratch lives on the device
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_y, bytes);
    cudaMalloc(&h_scratch, bytes);

    cudaMemcpy(h_scratch, input, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, h_scratch, bytes, cudaMemcpyDeviceToDevice);
    layerNorm<<<rows, 32>>>(d_x, d_y, rows, cols);
    cudaMemcpy(devResult, d_y, bytes, cudaMemcpyDeviceToHost);

    printf("y[0][0] = %f, y[0][1023] = %f\n", devResult[0], devResult[cols - 1]);

    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(h_scratch);
    free(input);
    free(devResult);
    return 0;
}
