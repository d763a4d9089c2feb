// case: implicit heat solver (red-black Gauss-Seidel) whose buffers are each written before any read: the temperature by an init kernel, the source term by cudaMemset, the residual accumulated in place by a read-modify-write kernel after a memset, the conductivity by a partial upload: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void init_temperature(float* T, int n, float t0)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) T[i] = t0;
}

__global__ void gs_sweep(float* T, const float* __restrict__ src, const float* __restrict__ k,
                         int nx, int ny, int colour)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1 || ((i + j) & 1) != colour) return;
    int c = j * nx + i;
    float kc = k[c % 1024];
    T[c] = (T[c - 1] + T[c + 1] + T[c - nx] + T[c + nx] + src[c] / kc) * 0.25f;
}

__global__ void accumulate_change(const float* __restrict__ T, float* acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += T[i];
}

int main(int argc, char** argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 1024, ny = nx, n = nx * ny;
    float *d_T, *d_src, *d_k, *d_acc;
    CK(cudaMalloc(&d_T, n * sizeof(float)));
    CK(cudaMalloc(&d_src, n * sizeof(float)));
    CK(cudaMalloc(&d_k, 1024 * sizeof(float)));
    CK(cudaMalloc(&d_acc, n * sizeof(float)));

    init_temperature<<<(n + 255) / 256, 256>>>(d_T, n, 293.15f);
    CK(cudaMemset(d_src, 0, n * sizeof(float)));
    CK(cudaMemset(d_acc, 0, n * sizeof(float)));
    std::vector<float> k(1024);
    for (int i = 0; i < 1024; ++i) k[i] = 1.f + 0.001f * i;
    CK(cudaMemcpy(d_k, k.data(), k.size() * sizeof(float), cudaMemcpyHostToDevice));
    float heater = 5000.f;
    CK(cudaMemcpy(d_src + (ny / 2) * nx + nx / 2, &heater, sizeof(float), cudaMemcpyHostToDevice));

    dim3 blk(16, 16), grd((nx + 15) / 16, (ny + 15) / 16);
    for (int it = 0; it < 200; ++it) {
        gs_sweep<<<grd, blk>>>(d_T, d_src, d_k, nx, ny, 0);
        gs_sweep<<<grd, blk>>>(d_T, d_src, d_k, nx, ny, 1);
        if (it % 20 == 19) accumulate_change<<<(n + 255) / 256, 256>>>(d_T, d_acc, n);
    }
    CK(cudaGetLastError());

    std::vector<float> acc(n), T(n);
    CK(cudaMemcpy(acc.data(), d_acc, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(T.data(), d_T, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("centre T %.3f K, mean of 10 snapshots %.3f K\n", T[(ny / 2) * nx + nx / 2],
           acc[(ny / 2) * nx + nx / 2] / 10.f);

    CK(cudaFree(d_acc));
    CK(cudaFree(d_k));
    CK(cudaFree(d_src));
    CK(cudaFree(d_T));
    return 0;
}
