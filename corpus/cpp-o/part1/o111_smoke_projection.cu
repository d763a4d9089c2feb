// case: 2D smoke solver's pressure projection; the pressure field is cudaMalloc'd and handed to the gradient-subtract kernel (read only) with nothing ever written to it, and the divergence norm copied into pinned memory is printed before the stream is synchronized.
// expect: uninitialized_device_read=1, missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define CUDA_CHECK(e) do { cudaError_t r_ = (e); if (r_ != cudaSuccess) { \
    fprintf(stderr, "%s @ %s:%d\n", cudaGetErrorString(r_), __FILE__, __LINE__); abort(); } } while (0)

struct Grid2D {
    int nx, ny;
    float h;
    __host__ __device__ int idx(int i, int j) const { return j * nx + i; }
};

__global__ void seed_velocity(float* u, float* v, Grid2D g)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= g.nx || j >= g.ny) return;
    float x = i * g.h, y = j * g.h;
    u[g.idx(i, j)] = sinf(6.28f * y) * 0.5f;
    v[g.idx(i, j)] = cosf(6.28f * x) * 0.5f;
}

__global__ void subtract_gradient(float* u, float* v, const float* __restrict__ p, Grid2D g)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= g.nx - 1 || j >= g.ny - 1) return;
    float s = 0.5f / g.h;
    u[g.idx(i, j)] -= s * (p[g.idx(i + 1, j)] - p[g.idx(i - 1, j)]);
    v[g.idx(i, j)] -= s * (p[g.idx(i, j + 1)] - p[g.idx(i, j - 1)]);
}

__global__ void divergence_norm(const float* u, const float* v, Grid2D g, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= g.nx - 1 || j >= g.ny - 1) return;
    float d = (u[g.idx(i + 1, j)] - u[g.idx(i - 1, j)] + v[g.idx(i, j + 1)] - v[g.idx(i, j - 1)]) * 0.5f / g.h;
    atomicAdd(out, d * d);
}

int main(int argc, char** argv)
{
    Grid2D g{argc > 1 ? atoi(argv[1]) : 1024, argc > 1 ? atoi(argv[1]) : 1024, 0.f};
    g.h = 1.f / g.nx;
    size_t bytes = (size_t)g.nx * g.ny * sizeof(float);

    float *d_u, *d_v, *d_p, *d_div, *h_div;
    CUDA_CHECK(cudaMalloc(&d_u, bytes));
    CUDA_CHECK(cudaMalloc(&d_v, bytes));
    CUDA_CHECK(cudaMalloc(&d_p, bytes));
    CUDA_CHECK(cudaMalloc(&d_div, sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_div, sizeof(float)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    dim3 blk(16, 16), grd((g.nx + 15) / 16, (g.ny + 15) / 16);
    seed_velocity<<<grd, blk, 0, s>>>(d_u, d_v, g);
    // (the pressure solve used to run here; d_p is still the raw allocation)
    subtract_gradient<<<grd, blk, 0, s>>>(d_u, d_v, d_p, g);        // EXPECT: uninitialized_device_read
    CUDA_CHECK(cudaMemsetAsync(d_div, 0, sizeof(float), s));
    divergence_norm<<<grd, blk, 0, s>>>(d_u, d_v, g, d_div);
    CUDA_CHECK(cudaMemcpyAsync(h_div, d_div, sizeof(float), cudaMemcpyDeviceToHost, s));
    printf("|div u|_2 after projection: %.6e\n", std::sqrt(*h_div));  // EXPECT: missing_sync

    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFreeHost(h_div));
    CUDA_CHECK(cudaFree(d_div));
    CUDA_CHECK(cudaFree(d_p));
    CUDA_CHECK(cudaFree(d_v));
    CUDA_CHECK(cudaFree(d_u));
    return 0;
}
