// case: a stencil solver runs its kernels on a stream made with plain cudaStreamCreate (blocking) and on the legacy default stream, then reads results with synchronous cudaMemcpy on the legacy stream, which waits for both.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <cmath>
#include <utility>

#define CK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void heat_step(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    out[i] = in[i] + alpha * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] - 4.f * in[i]);
}

__global__ void residual(const float* a, const float* b, float* r, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = fabsf(a[i] - b[i]);
}

int main() {
    const int nx = 2048, ny = 2048, n = nx * ny;
    const size_t bytes = (size_t)n * sizeof(float);
    std::vector<float> field(n, 0.f);
    for (int x = 0; x < nx; ++x) field[x] = 100.f;   // hot top edge

    float *d_a, *d_b, *d_r;
    CK(cudaMalloc(&d_a, bytes));
    CK(cudaMalloc(&d_b, bytes));
    CK(cudaMalloc(&d_r, bytes));
    CK(cudaMemcpy(d_a, field.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, field.data(), bytes, cudaMemcpyHostToDevice));

    cudaStream_t solver;
    CK(cudaStreamCreate(&solver));      // blocking: syncs with the legacy stream

    dim3 block(16, 16), grid(nx / 16, ny / 16);
    for (int it = 0; it < 500; ++it) {
        heat_step<<<grid, block, 0, solver>>>(d_a, d_b, nx, ny, 0.2f);
        std::swap(d_a, d_b);
    }
    residual<<<(n + 255) / 256, 256>>>(d_a, d_b, d_r, n);   // legacy default stream

    std::vector<float> res(n);
    CK(cudaMemcpy(field.data(), d_a, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(res.data(), d_r, bytes, cudaMemcpyDeviceToHost));

    double maxres = 0.0, centre = field[(ny / 2) * nx + nx / 2];
    for (float v : res) maxres = std::fmax(maxres, (double)v);
    std::printf("centre T = %.4f, max residual = %.3e\n", centre, maxres);

    CK(cudaStreamDestroy(solver));
    CK(cudaFree(d_r));
    CK(cudaFree(d_b));
    CK(cudaFree(d_a));
    return 0;
}
