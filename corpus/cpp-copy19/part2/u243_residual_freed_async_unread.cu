// case: a stream-ordered relaxation step computes a residual into a cudaMallocAsync buffer that nothing reduces or copies before cudaFreeAsync releases it; only the solution is copied back.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kN = 1 << 18;

__global__ void relax(const double* x, const double* b, double* x_new, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double l = i > 0 ? x[i - 1] : 0.0, r = i < n - 1 ? x[i + 1] : 0.0;
    x_new[i] = 0.5 * (b[i] + l + r);
}

__global__ void residual(const double* x, const double* b, double* res, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double l = i > 0 ? x[i - 1] : 0.0, r = i < n - 1 ? x[i + 1] : 0.0;
    res[i] = b[i] - (2.0 * x[i] - l - r);
}

int main()
{
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    double *h_b, *h_x;
    CK(cudaMallocHost(&h_b, kN * sizeof(double)));
    CK(cudaMallocHost(&h_x, kN * sizeof(double)));
    for (int i = 0; i < kN; ++i) h_b[i] = 1.0 / kN;

    double *d_b, *d_x, *d_xn, *d_res;
    CK(cudaMallocAsync(&d_b, kN * sizeof(double), s));
    CK(cudaMallocAsync(&d_x, kN * sizeof(double), s));
    CK(cudaMallocAsync(&d_xn, kN * sizeof(double), s));
    CK(cudaMallocAsync(&d_res, kN * sizeof(double), s));
    CK(cudaMemcpyAsync(d_b, h_b, kN * sizeof(double), cudaMemcpyHostToDevice, s));
    CK(cudaMemsetAsync(d_x, 0, kN * sizeof(double), s));

    const int tpb = 256, nb = (kN + tpb - 1) / tpb;
    relax<<<nb, tpb, 0, s>>>(d_x, d_b, d_xn, kN);
    residual<<<nb, tpb, 0, s>>>(d_xn, d_b, d_res, kN);
    CK(cudaMemcpyAsync(h_x, d_xn, kN * sizeof(double), cudaMemcpyDeviceToHost, s));

    CK(cudaFreeAsync(d_res, s)); // EXPECT: unread_kernel_output
    CK(cudaFreeAsync(d_xn, s));
    CK(cudaFreeAsync(d_x, s));
    CK(cudaFreeAsync(d_b, s));
    CK(cudaStreamSynchronize(s));

    std::printf("x[mid] = %g\n", h_x[kN / 2]);
    CK(cudaFreeHost(h_b));
    CK(cudaFreeHost(h_x));
    CK(cudaStreamDestroy(s));
    return 0;
}
