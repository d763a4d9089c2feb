// case: A C-style 2D Jacobi solver keeps every status in a cudaError_t and jumps to cleanup on failure, where the frees are discarded on purpose with (void) casts.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void jacobi(const float* u, float* u_new, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    u_new[y * nx + x] = 0.25f * (u[y * nx + x - 1] + u[y * nx + x + 1] +
                                 u[(y - 1) * nx + x] + u[(y + 1) * nx + x]);
}

int main(void) {
    const int nx = 1024, ny = 1024, iters = 200;
    const size_t bytes = size_t(nx) * ny * sizeof(float);
    std::vector<float> grid(size_t(nx) * ny, 0.0f);
    for (int x = 0; x < nx; ++x) grid[x] = 1.0f;  // hot top edge

    float* d_u = NULL;
    float* d_v = NULL;
    int rc = 1;
    dim3 block(32, 8);
    dim3 blocks((nx + 31) / 32, (ny + 7) / 8);
    cudaError_t err = cudaMalloc(&d_u, bytes);
    if (err != cudaSuccess) goto cleanup;
    err = cudaMalloc(&d_v, bytes);
    if (err != cudaSuccess) goto cleanup;
    err = cudaMemcpy(d_u, grid.data(), bytes, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) goto cleanup;
    err = cudaMemcpy(d_v, grid.data(), bytes, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) goto cleanup;

    for (int it = 0; it < iters; ++it) {
        jacobi<<<blocks, block>>>(d_u, d_v, nx, ny);
        err = cudaGetLastError();
        if (err != cudaSuccess) goto cleanup;
        float* t = d_u;
        d_u = d_v;
        d_v = t;
    }
    err = cudaDeviceSynchronize();
    if (err != cudaSuccess) goto cleanup;
    err = cudaMemcpy(grid.data(), d_u, bytes, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) goto cleanup;
    printf("centre value after %d iterations: %f\n", iters, grid[(ny / 2) * nx + nx / 2]);
    rc = 0;

cleanup:
    if (err != cudaSuccess) fprintf(stderr, "CUDA failure: %s\n", cudaGetErrorString(err));
    (void)cudaFree(d_v);
    (void)cudaFree(d_u);
    return rc;
}
