// case: power iteration calls a norm helper that allocates a device accumulator into a local, copies the result out and returns without freeing it
// expect: device_memory_leak=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define DIM 2048
#define ITERS 50
#define TPB 256

__global__ void matvec(const float* A, const float* x, float* y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float acc = 0.f;
    for (int j = 0; j < n; ++j) acc += A[row * n + j] * x[j];
    y[row] = acc;
}

__global__ void sumsq(const float* v, float* accum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(accum, v[i] * v[i]);
}

__global__ void scale(float* v, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= s;
}

static float l2norm(const float* d_v, int n) {
    float* d_accum;
    cudaMalloc(&d_accum, sizeof(float)); // EXPECT: device_memory_leak
    cudaMemset(d_accum, 0, sizeof(float));
    sumsq<<<(n + TPB - 1) / TPB, TPB>>>(d_v, d_accum, n);
    float h = 0.f;
    cudaMemcpy(&h, d_accum, sizeof(float), cudaMemcpyDeviceToHost);
    return sqrtf(h);
}

int main() {
    std::vector<float> A(DIM * DIM), x(DIM, 1.0f);
    for (int i = 0; i < DIM; ++i)
        for (int j = 0; j < DIM; ++j)
            A[i * DIM + j] = (i == j) ? 2.0f : 1.0f / (1 + abs(i - j));

    float *d_A, *d_x, *d_y;
    cudaMalloc(&d_A, sizeof(float) * DIM * DIM);
    cudaMalloc(&d_x, sizeof(float) * DIM);
    cudaMalloc(&d_y, sizeof(float) * DIM);
    cudaMemcpy(d_A, A.data(), sizeof(float) * DIM * DIM, cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x.data(), sizeof(float) * DIM, cudaMemcpyHostToDevice);

    float lambda = 0.f;
    const int blocks = (DIM + TPB - 1) / TPB;
    for (int it = 0; it < ITERS; ++it) {
        matvec<<<blocks, TPB>>>(d_A, d_x, d_y, DIM);
        lambda = l2norm(d_y, DIM);
        scale<<<blocks, TPB>>>(d_y, 1.0f / lambda, DIM);
        cudaMemcpy(d_x, d_y, sizeof(float) * DIM, cudaMemcpyDeviceToDevice);
    }
    cudaMemcpy(x.data(), d_x, sizeof(float) * DIM, cudaMemcpyDeviceToHost);
    printf("dominant eigenvalue ~ %f, x[0] = %f\n", lambda, x[0]);

    cudaFree(d_A);
    cudaFree(d_x);
    cudaFree(d_y);
    return 0;
}
