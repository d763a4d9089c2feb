// case: A stencil solver allocates its host result buffer with cudaHostAllocWriteCombined (fast for uploads) but uses it as the destination of the residual download and then reads it on the host to compute the norm.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <utility>

#define CHK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; } } while (0)

__global__ void jacobi_sweep(const double* __restrict__ u, double* __restrict__ u_new,
                             double* __restrict__ resid, const double* __restrict__ f,
                             int nx, int ny, double h2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i <= 0 || j <= 0 || i >= nx - 1 || j >= ny - 1) return;
    int k = j * nx + i;
    double v = 0.25 * (u[k - 1] + u[k + 1] + u[k - nx] + u[k + nx] - h2 * f[k]);
    u_new[k] = v;
    resid[k] = v - u[k];
}

int main() {
    const int nx = 2048, ny = 2048;
    const size_t cells = size_t(nx) * ny, bytes = cells * sizeof(double);
    const double h = 1.0 / (nx - 1);

    double *h_rhs, *h_resid;
    CHK(cudaHostAlloc(&h_rhs, bytes, cudaHostAllocWriteCombined));
    CHK(cudaHostAlloc(&h_resid, bytes, cudaHostAllocWriteCombined));
    for (size_t k = 0; k < cells; ++k) h_rhs[k] = std::sin(3.0 * (k % nx) * h) * std::cos(2.0 * (k / nx) * h);

    double *d_u, *d_unew, *d_f, *d_resid;
    CHK(cudaMalloc(&d_u, bytes));
    CHK(cudaMalloc(&d_unew, bytes));
    CHK(cudaMalloc(&d_f, bytes));
    CHK(cudaMalloc(&d_resid, bytes));
    CHK(cudaMemset(d_u, 0, bytes));
    CHK(cudaMemset(d_unew, 0, bytes));
    CHK(cudaMemset(d_resid, 0, bytes));

    cudaStream_t s;
    CHK(cudaStreamCreate(&s));
    CHK(cudaMemcpyAsync(d_f, h_rhs, bytes, cudaMemcpyHostToDevice, s));

    dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
    for (int it = 0; it < 500; ++it) {
        jacobi_sweep<<<grid, block, 0, s>>>(d_u, d_unew, d_resid, d_f, nx, ny, h * h);
        std::swap(d_u, d_unew);
    }
    CHK(cudaMemcpyAsync(h_resid, d_resid, bytes, cudaMemcpyDeviceToHost, s));
    CHK(cudaStreamSynchronize(s));

    double norm2 = std::inner_product(h_resid, h_resid + cells, h_resid, 0.0);
    printf("||r||_2 after 500 sweeps: %.3e\n", std::sqrt(norm2));

    CHK(cudaFreeHost(h_rhs));
    CHK(cudaFreeHost(h_resid));
    cudaFree(d_u); cudaFree(d_unew); cudaFree(d_f); cudaFree(d_resid);
    cudaStreamDestroy(s);
    return 0;
}
