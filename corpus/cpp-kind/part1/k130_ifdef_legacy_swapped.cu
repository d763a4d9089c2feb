// case: a Jacobi solver keeps an old, swapped readback inside #ifdef USE_LEGACY_READBACK, which the file never defines; the compiled #else arm downloads correctly.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void jacobi(const float* u, float* unew, const float* f, int n, float h2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 1 || i >= n - 1) return;
    unew[i] = 0.5f * (u[i - 1] + u[i + 1] - h2 * f[i]);
}

int main() {
    const int n = 4097, iters = 2000;
    const float h = 1.f / (n - 1);
    const size_t bytes = n * sizeof(float);
    float* f = (float*)malloc(bytes);
    float* u = (float*)malloc(bytes);
    for (int i = 0; i < n; ++i) { f[i] = -1.f; u[i] = 0.f; }

    float *d_u, *d_unew, *d_f;
    cudaMalloc(&d_u, bytes);
    cudaMalloc(&d_unew, bytes);
    cudaMalloc(&d_f, bytes);
    cudaMemcpy(d_u, u, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_unew, u, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_f, f, bytes, cudaMemcpyHostToDevice);

    for (int it = 0; it < iters; ++it) {
        jacobi<<<(n + 255) / 256, 256>>>(d_u, d_unew, d_f, n, h * h);
        float* t = d_u; d_u = d_unew; d_unew = t;
    }

#ifdef USE_LEGACY_READBACK
    cudaMemcpy(d_u, u, bytes, cudaMemcpyDeviceToHost);
#else
    cudaMemcpy(u, d_u, bytes, cudaMemcpyDeviceToHost);
#endif

    float exact = 0.5f * 0.5f * (1.f - 0.5f);
    printf("u(0.5) = %f, exact %f\n", u[n / 2], exact);

    cudaFree(d_u);
    cudaFree(d_unew);
    cudaFree(d_f);
    free(f);
    free(u);
    return 0;
}
