// case: power iteration on a 1D Laplacian in CSR form; the Rayleigh-quotient loop on the host indexes y.get(), a cudaMalloc'd array owned by DeviceArray (device_array.cuh), instead of a downloaded copy.
// expect: host_deref_device_ptr=1
#include "device_array.cuh"
#include <cmath>

__global__ void spmv_csr(int rows, const int* __restrict__ rp, const int* __restrict__ ci,
                         const double* __restrict__ v, const double* __restrict__ x,
                         double* __restrict__ y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    double acc = 0.0;
    for (int k = rp[r]; k < rp[r + 1]; ++k) acc += v[k] * x[ci[k]];
    y[r] = acc;
}

__global__ void scale(double* x, const double* y, double inv_norm, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = y[i] * inv_norm;
}

static CsrMatrix make_laplacian(int n)
{
    std::vector<int> rp(n + 1), ci;
    std::vector<double> v;
    for (int i = 0; i < n; ++i) {
        rp[i] = (int)ci.size();
        if (i > 0)     { ci.push_back(i - 1); v.push_back(-1.0); }
        ci.push_back(i); v.push_back(2.0);
        if (i < n - 1) { ci.push_back(i + 1); v.push_back(-1.0); }
    }
    rp[n] = (int)ci.size();
    return CsrMatrix(n, n, rp, ci, v);
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    CsrMatrix A = make_laplacian(n);

    std::vector<double> x0(n);
    for (int i = 0; i < n; ++i) x0[i] = 1.0 + 0.001 * (i % 17);
    DeviceArray<double> x(x0);
    DeviceArray<double> y(n);

    int threads = 256, blocks = (n + threads - 1) / threads;
    double lambda = 0.0;
    std::vector<double> hx;
    for (int it = 0; it < 50; ++it) {
        spmv_csr<<<blocks, threads>>>(n, A.row_ptr.get(), A.col_idx.get(), A.vals.get(),
                                      x.get(), y.get());
        CSR_CHECK(cudaDeviceSynchronize());
        x.download(hx);
        const double* py = y.get();
        double num = 0.0, den = 0.0, xx = 0.0;
        for (int i = 0; i < n; ++i) {
            num += hx[i] * py[i];                 // EXPECT: host_deref_device_ptr
            den += py[i] * py[i];
            xx += hx[i] * hx[i];
        }
        lambda = num / xx;
        double norm = std::sqrt(den);
        scale<<<blocks, threads>>>(x.get(), y.get(), 1.0 / norm, n);
        CSR_CHECK(cudaGetLastError());
    }
    CSR_CHECK(cudaDeviceSynchronize());
    printf("estimated largest eigenvalue: %.6f\n", lambda);
    return 0;
}
