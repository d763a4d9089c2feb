// case: a heat-diffusion step writes d_next, which is copied device-to-device into a snapshot buffer that is then downloaded; both buffers are read after their last write before the frees.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s line %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)

constexpr int NX = 512, NY = 512;
constexpr float ALPHA = 0.2f;

__global__ void heat_step(const float* u, float* u_next, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) { u_next[i] = u[i]; return; }
    u_next[i] = u[i] + ALPHA * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.f * u[i]);
}

int main()
{
    const size_t bytes = NX * NY * sizeof(float);
    std::vector<float> u0(NX * NY, 0.f), snap(NX * NY);
    for (int y = NY / 2 - 8; y < NY / 2 + 8; ++y)
        for (int x = NX / 2 - 8; x < NX / 2 + 8; ++x) u0[y * NX + x] = 100.f;

    float *d_u, *d_next, *d_snapshot;
    CUDA_CHECK(cudaMalloc(&d_u, bytes));
    CUDA_CHECK(cudaMalloc(&d_next, bytes));
    CUDA_CHECK(cudaMalloc(&d_snapshot, bytes));
    CUDA_CHECK(cudaMemcpy(d_u, u0.data(), bytes, cudaMemcpyHostToDevice));

    dim3 block(16, 16), grid(NX / 16, NY / 16);
    heat_step<<<grid, block>>>(d_u, d_next, NX, NY);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(d_snapshot, d_next, bytes, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy(snap.data(), d_snapshot, bytes, cudaMemcpyDeviceToHost));

    std::printf("centre after one step: %f\n", snap[(NY / 2) * NX + NX / 2]);

    CUDA_CHECK(cudaFree(d_u));
    CUDA_CHECK(cudaFree(d_next));
    CUDA_CHECK(cudaFree(d_snapshot));
    return 0;
}
