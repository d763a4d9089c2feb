// case: A lattice-Boltzmann driver launches the field initialisation kernel (device memory only) and, while it runs, fills the fields of a cudaMallocManaged parameter struct on the host, which faults on devices without concurrent managed access.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>

#define LBM_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("LBM: %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

struct LbmParams {
    int nx, ny;
    float omega;       // relaxation rate
    float u_lid;       // lid velocity
    float w[9];
    int cx[9], cy[9];
};

__global__ void init_equilibrium(float* f, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= nx) return;
    const float w[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
    for (int q = 0; q < 9; ++q) f[(q * ny + y) * nx + x] = w[q];
}

__global__ void collide_stream(const float* __restrict__ f_in, float* __restrict__ f_out, const LbmParams* p) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    int nx = p->nx, ny = p->ny;
    if (x >= nx) return;
    float rho = 0.f, ux = 0.f, uy = 0.f, fi[9];
    for (int q = 0; q < 9; ++q) {
        fi[q] = f_in[(q * ny + y) * nx + x];
        rho += fi[q]; ux += fi[q] * p->cx[q]; uy += fi[q] * p->cy[q];
    }
    ux /= rho; uy /= rho;
    if (y == ny - 1) ux = p->u_lid;
    for (int q = 0; q < 9; ++q) {
        float cu = 3.f * (p->cx[q] * ux + p->cy[q] * uy);
        float feq = p->w[q] * rho * (1.f + cu + 0.5f * cu * cu - 1.5f * (ux * ux + uy * uy));
        int xn = (x + p->cx[q] + nx) % nx, yn = min(max(y + p->cy[q], 0), ny - 1);
        f_out[(q * ny + yn) * nx + xn] = fi[q] - p->omega * (fi[q] - feq);
    }
}

int main() {
    const int nx = 1024, ny = 1024;
    const size_t cells = size_t(nx) * ny;
    float *d_f0, *d_f1;
    LBM_CHECK(cudaMalloc(&d_f0, 9 * cells * sizeof(float)));
    LBM_CHECK(cudaMalloc(&d_f1, 9 * cells * sizeof(float)));
    LbmParams* params = nullptr;
    LBM_CHECK(cudaMallocManaged(&params, sizeof(LbmParams)));

    dim3 block(128), grid((nx + 127) / 128, ny);
    init_equilibrium<<<grid, block>>>(d_f0, nx, ny);

    // Overlap host-side setup with the init kernel...
    params->nx = nx;
    params->ny = ny;
    params->omega = 1.0f / (3.0f * 0.02f + 0.5f);
    params->u_lid = 0.1f;
    const float w[9] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
    const int cx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1}, cy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
    for (int q = 0; q < 9; ++q) { params->w[q] = w[q]; params->cx[q] = cx[q]; params->cy[q] = cy[q]; }
    LBM_CHECK(cudaDeviceSynchronize());

    for (int step = 0; step < 1000; ++step) {
        collide_stream<<<grid, block>>>(d_f0, d_f1, params);
        float* t = d_f0; d_f0 = d_f1; d_f1 = t;
    }
    LBM_CHECK(cudaDeviceSynchronize());
    float corner;
    LBM_CHECK(cudaMemcpy(&corner, d_f0 + (ny - 1) * nx + nx / 2, sizeof(float), cudaMemcpyDeviceToHost));
    printf("f0 at lid centre after 1000 steps: %f (omega %.3f)\n", corner, params->omega);

    cudaFree(params);
    cudaFree(d_f0);
    cudaFree(d_f1);
    return 0;
}
