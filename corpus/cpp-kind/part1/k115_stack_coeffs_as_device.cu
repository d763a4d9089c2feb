// case: an FIR filter copies its 16 stack-array taps into device memory with cudaMemcpyDeviceToDevice, naming the stack array as device memory (should be HostToDevice).
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cmath>
#include <cuda_runtime.h>

#define TAPS 16

__global__ void fir(const float* x, const float* h, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < TAPS - 1 || i >= n) return;
    float acc = 0.f;
    for (int k = 0; k < TAPS; ++k) acc += h[k] * x[i - k];
    y[i] = acc;
}

int main() {
    const int n = 1 << 20;
    float taps[TAPS];
    for (int k = 0; k < TAPS; ++k) taps[k] = 0.5f * (1.f - cosf(2.f * 3.14159265f * k / (TAPS - 1)));

    float *d_x, *d_h, *d_y;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_h, TAPS * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMemset(d_x, 0, n * sizeof(float));
    cudaMemset(d_y, 0, n * sizeof(float));

    cudaMemcpy(d_h, taps, sizeof(taps), cudaMemcpyDeviceToDevice); // EXPECT: memcpy_kind_mismatch

    fir<<<(n + 255) / 256, 256>>>(d_x, d_h, d_y, n);
    float y100;
    cudaMemcpy(&y100, d_y + 100, sizeof(float), cudaMemcpyDeviceToHost);
    printf("y[100] = %f\n", y100);

    cudaFree(d_x);
    cudaFree(d_h);
    cudaFree(d_y);
    return 0;
}
