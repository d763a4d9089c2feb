// case: A 2D heat-diffusion solver keeps both grids in managed memory, initializes them on the host before any kernel, prefetches them to the device, swaps them between Jacobi sweeps on one stream, and touches them on the host only after synchronizing that stream; correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t err_ = (x);                                                    \
        if (err_ != cudaSuccess) {                                                 \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                         cudaGetErrorString(err_));                                \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

static void prefetch(const void* p, size_t bytes, int device, cudaStream_t s) {
#if CUDART_VERSION >= 13000
    cudaMemLocation loc{};
    loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = device == cudaCpuDeviceId ? 0 : device;
    CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, loc, 0, s));
#else
    CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, device, s));
#endif
}

__global__ void jacobi_step(const float* __restrict__ t, float* __restrict__ t_new, int nx, int ny, float alpha) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i <= 0 || j <= 0 || i >= nx - 1 || j >= ny - 1) return;
    size_t c = size_t(j) * nx + i;
    float lap = t[c - 1] + t[c + 1] + t[c - nx] + t[c + nx] - 4.0f * t[c];
    t_new[c] = t[c] + alpha * lap;
}

int main() {
    const int nx = 2048, ny = 2048, steps = 500;
    const size_t cells = size_t(nx) * ny;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));

    float *t = nullptr, *t_new = nullptr;
    CUDA_CHECK(cudaMallocManaged(&t, cells * sizeof(float)));
    CUDA_CHECK(cudaMallocManaged(&t_new, cells * sizeof(float)));

    // Hot plate in the middle, cold borders (Dirichlet). Both grids carry the borders.
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            float r = std::hypot(i - nx / 2.0f, j - ny / 2.0f);
            t[size_t(j) * nx + i] = r < 100.0f ? 100.0f : 0.0f;
            t_new[size_t(j) * nx + i] = t[size_t(j) * nx + i];
        }

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    prefetch(t, cells * sizeof(float), device, stream);
    prefetch(t_new, cells * sizeof(float), device, stream);

    dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
    for (int s = 0; s < steps; ++s) {
        jacobi_step<<<grid, block, 0, stream>>>(t, t_new, nx, ny, 0.2f);
        std::swap(t, t_new);
    }
    CUDA_CHECK(cudaGetLastError());
    prefetch(t, cells * sizeof(float), cudaCpuDeviceId, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double heat = 0.0;
    float center = t[size_t(ny / 2) * nx + nx / 2];
    for (size_t c = 0; c < cells; ++c) heat += t[c];
    std::printf("after %d steps: total heat %.1f, center %.3f\n", steps, heat, center);

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(t));
    CUDA_CHECK(cudaFree(t_new));
    return 0;
}
