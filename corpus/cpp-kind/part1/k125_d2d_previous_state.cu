// case: a wave-equation solver saves the current field into a "previous" buffer every step with cudaMemcpyDeviceToDevice between two cudaMalloc buffers, then downloads the result correctly.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void waveStep(const float* prev, const float* cur, float* next, int n, float c2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 1 || i >= n - 1) return;
    next[i] = 2.f * cur[i] - prev[i] + c2 * (cur[i - 1] - 2.f * cur[i] + cur[i + 1]);
}

int main() {
    const int n = 1 << 16, steps = 500;
    const size_t bytes = n * sizeof(float);
    float* field = (float*)malloc(bytes);
    for (int i = 0; i < n; ++i) field[i] = (i > n / 2 - 32 && i < n / 2 + 32) ? 1.f : 0.f;

    float *d_prev, *d_cur, *d_next;
    cudaMalloc(&d_prev, bytes);
    cudaMalloc(&d_cur, bytes);
    cudaMalloc(&d_next, bytes);
    cudaMemset(d_next, 0, bytes);
    cudaMemcpy(d_cur, field, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_prev, d_cur, bytes, cudaMemcpyDeviceToDevice);

    for (int s = 0; s < steps; ++s) {
        waveStep<<<(n + 255) / 256, 256>>>(d_prev, d_cur, d_next, n, 0.25f);
        cudaMemcpy(d_prev, d_cur, bytes, cudaMemcpyDeviceToDevice);
        cudaMemcpy(d_cur, d_next, bytes, cudaMemcpyDeviceToDevice);
    }

    cudaMemcpy(field, d_cur, bytes, cudaMemcpyDeviceToHost);
    float energy = 0.f;
    for (int i = 0; i < n; ++i) energy += field[i] * field[i];
    printf("energy after %d steps: %f\n", steps, energy);

    cudaFree(d_prev);
    cudaFree(d_cur);
    cudaFree(d_next);
    free(field);
    return 0;
}
