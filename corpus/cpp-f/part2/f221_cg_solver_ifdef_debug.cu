// case: A conjugate-gradient solver has a debug peek that dereferences the device residual and a pageable async upload path, but both sit in #ifdef arms this file does not enable (CG_UNSAFE_PEEK undefined, CG_PINNED_STAGING defined), so the default build only uses cudaMemcpy and pinned staging.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>
#include <algorithm>

#define CG_PINNED_STAGING 1

#define CG_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "cg: %s\n", cudaGetErrorString(e)); return -1; } } while (0)

__global__ void spmv_laplace1d(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double l = i > 0 ? x[i - 1] : 0.0, r = i < n - 1 ? x[i + 1] : 0.0;
    y[i] = 2.0 * x[i] - l - r;
}
__global__ void axpy(double a, const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
__global__ void xpay(const double* x, double b, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + b * y[i];
}
__global__ void dot_partial(const double* a, const double* b, double* out, int n) {
    __shared__ double s[256];
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += a[i] * b[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) { if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o]; __syncthreads(); }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

static double dot(const double* a, const double* b, double* d_tmp, int n) {
    cudaMemset(d_tmp, 0, sizeof(double));
    dot_partial<<<120, 256>>>(a, b, d_tmp, n);
    double h = 0.0;
    cudaMemcpy(&h, d_tmp, sizeof(double), cudaMemcpyDeviceToHost);
    return h;
}

int solve(int n, int max_iter, double tol) {
    std::vector<double> rhs(n, 1.0 / n);
    double *d_x, *d_r, *d_p, *d_Ap, *d_tmp;
    CG_CHECK(cudaMalloc(&d_x, n * sizeof(double)));
    CG_CHECK(cudaMalloc(&d_r, n * sizeof(double)));
    CG_CHECK(cudaMalloc(&d_p, n * sizeof(double)));
    CG_CHECK(cudaMalloc(&d_Ap, n * sizeof(double)));
    CG_CHECK(cudaMalloc(&d_tmp, sizeof(double)));
    CG_CHECK(cudaMemset(d_x, 0, n * sizeof(double)));

#ifdef CG_PINNED_STAGING
    double* h_stage;
    CG_CHECK(cudaMallocHost(&h_stage, n * sizeof(double)));
    std::copy(rhs.begin(), rhs.end(), h_stage);
    CG_CHECK(cudaMemcpyAsync(d_r, h_stage, n * sizeof(double), cudaMemcpyHostToDevice, 0));
    CG_CHECK(cudaStreamSynchronize(0));
    CG_CHECK(cudaFreeHost(h_stage));
#else
    CG_CHECK(cudaMemcpyAsync(d_r, rhs.data(), n * sizeof(double), cudaMemcpyHostToDevice, 0));
#endif
    CG_CHECK(cudaMemcpy(d_p, d_r, n * sizeof(double), cudaMemcpyDeviceToDevice));

    const int B = 256, G = (n + B - 1) / B;
    double rr = dot(d_r, d_r, d_tmp, n);
    int it = 0;
    for (; it < max_iter && std::sqrt(rr) > tol; ++it) {
        spmv_laplace1d<<<G, B>>>(d_p, d_Ap, n);
        double alpha = rr / dot(d_p, d_Ap, d_tmp, n);
        axpy<<<G, B>>>(alpha, d_p, d_x, n);
        axpy<<<G, B>>>(-alpha, d_Ap, d_r, n);
        double rr_new = dot(d_r, d_r, d_tmp, n);
#ifdef CG_UNSAFE_PEEK
        if (it % 100 == 0) printf("it %d r[0]=%g\n", it, d_r[0]);
#endif
        xpay<<<G, B>>>(d_r, rr_new / rr, d_p, n);
        rr = rr_new;
    }
    std::vector<double> x(n);
    CG_CHECK(cudaMemcpy(x.data(), d_x, n * sizeof(double), cudaMemcpyDeviceToHost));
    printf("CG: %d iterations, |r| = %.3e, x[n/2] = %.6f\n", it, std::sqrt(rr), x[n / 2]);
    cudaFree(d_x); cudaFree(d_r); cudaFree(d_p); cudaFree(d_Ap); cudaFree(d_tmp);
    return it;
}

int main() { return solve(1 << 20, 2000, 1e-8) < 0 ? 1 : 0; }
