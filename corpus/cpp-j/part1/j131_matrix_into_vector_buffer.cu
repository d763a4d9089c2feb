// case: a matrix-vector product allocates the device vector with N floats but uploads the N x N matrix's byte count into it (the size of the matrix copy pasted), overrunning the allocation
// expect: copy_out_of_bounds=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define N 512

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__global__ void matvec(const float* A, const float* x, float* y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < N) {
        float acc = 0.f;
        for (int c = 0; c < N; ++c) acc += A[row * N + c] * x[c];
        y[row] = acc;
    }
}

int main() {
    float* h_A = (float*)malloc(N * N * sizeof(float));
    float* h_x = (float*)malloc(N * N * sizeof(float));
    float* h_y = (float*)malloc(N * sizeof(float));
    for (int i = 0; i < N * N; ++i) { h_A[i] = 1.0f / (1 + i % N); h_x[i] = 1.0f; }

    float *d_A, *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_A, N * N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x, N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, N * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_A, h_A, N * N * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, N * N * sizeof(float), cudaMemcpyHostToDevice)); // EXPECT: copy_out_of_bounds

    matvec<<<(N + 127) / 128, 128>>>(d_A, d_x, d_y);
    CUDA_CHECK(cudaMemcpy(h_y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost));
    printf("y[0] = %f, y[N-1] = %f\n", h_y[0], h_y[N - 1]);

    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_A));
    free(h_y);
    free(h_x);
    free(h_A);
    return 0;
}
