// case: a Jacobi solver on cudaMalloc'd grids keeps its run statistics in a cudaMallocManaged struct that no kernel uses, and bumps the launch counter right after each launch while the kernel may still run, which faults on devices without concurrent managed access.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

struct RunStats {
    unsigned long long launches;
    double host_seconds;
};

__global__ void jacobi_step(const float* __restrict__ a, float* __restrict__ b, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) {
        if (x < nx && y < ny) b[y * nx + x] = a[y * nx + x];
        return;
    }
    b[y * nx + x] = 0.25f * (a[y * nx + x - 1] + a[y * nx + x + 1] + a[(y - 1) * nx + x] + a[(y + 1) * nx + x]);
}

int main() {
    const int nx = 2048, ny = 2048, iters = 500;
    const size_t bytes = size_t(nx) * ny * sizeof(float);

    std::vector<float> h_grid(size_t(nx) * ny, 0.f);
    for (int x = 0; x < nx; ++x) h_grid[x] = 100.f;  // hot top edge

    float *d_a, *d_b;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_grid.data(), bytes, cudaMemcpyHostToDevice));

    RunStats* stats = nullptr;
    CUDA_CHECK(cudaMallocManaged(&stats, sizeof(RunStats)));
    stats->launches = 0;
    stats->host_seconds = 0.0;

    dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
    auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iters; ++it) {
        jacobi_step<<<grid, block>>>(d_a, d_b, nx, ny);
        stats->launches += 1; // EXPECT: managed_concurrent_access
        std::swap(d_a, d_b);
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    stats->host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    CUDA_CHECK(cudaMemcpy(h_grid.data(), d_a, bytes, cudaMemcpyDeviceToHost));
    printf("%llu launches in %.3f s, centre value %.4f\n", stats->launches, stats->host_seconds,
           h_grid[size_t(ny / 2) * nx + nx / 2]);

    CUDA_CHECK(cudaFree(stats));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    return 0;
}
