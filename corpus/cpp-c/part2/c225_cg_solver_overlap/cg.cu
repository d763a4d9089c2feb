// case: a conjugate-gradient solver copies the p.Ap dot product into pinned memory and, in the default build (CG_OVERLAP_DOT set in its header), launches the next kernel and reads the scalar before any wait on the stream
// expect: missing_sync=1
#include "cg_workspace.cuh"
#include <cmath>

// 1D Laplacian applied matrix-free.
__global__ void apply_laplacian(const double* p, double* Ap, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double left = i > 0 ? p[i - 1] : 0.0, right = i + 1 < n ? p[i + 1] : 0.0;
    Ap[i] = 2.0 * p[i] - left - right;
}

__global__ void dot(const double* a, const double* b, double* out, int n) {
    __shared__ double part[256];
    double s = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += a[i] * b[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

__global__ void axpy_pair(double* x, double* r, const double* p, const double* Ap, double alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] += alpha * p[i];
    r[i] -= alpha * Ap[i];
}

__global__ void update_p(double* p, const double* r, double beta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = r[i] + beta * p[i];
}

__global__ void fill(double* v, double val, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = val;
}

int main() {
    const int n = 1 << 22, T = 256, B = (n + T - 1) / T;
    CgWorkspace ws(n);
    cudaStream_t s = ws.stream;

    fill<<<B, T, 0, s>>>(ws.x.data(), 0.0, n);
    fill<<<B, T, 0, s>>>(ws.r.data(), 1.0, n);   // b = 1, x0 = 0
    fill<<<B, T, 0, s>>>(ws.p.data(), 1.0, n);
    double rr = (double)n;

    int it = 0;
    for (; it < 500 && rr > 1e-16 * n; ++it) {
        apply_laplacian<<<B, T, 0, s>>>(ws.p.data(), ws.Ap.data(), n);
        CUDA_CHECK(cudaMemsetAsync(ws.d_dots.data(), 0, 2 * sizeof(double), s));
        dot<<<240, 256, 0, s>>>(ws.p.data(), ws.Ap.data(), ws.d_dots.data() + 1, n);
        CUDA_CHECK(cudaMemcpyAsync(ws.h_dots + 1, ws.d_dots.data() + 1, sizeof(double), cudaMemcpyDeviceToHost, s));
#if CG_OVERLAP_DOT
        // start on r.r of the *old* residual while the host computes alpha
        dot<<<240, 256, 0, s>>>(ws.r.data(), ws.r.data(), ws.d_dots.data(), n);
#else
        CUDA_CHECK(cudaStreamSynchronize(s));
#endif
        const double pAp = ws.h_dots[1]; // EXPECT: missing_sync
        const double alpha = rr / pAp;
        axpy_pair<<<B, T, 0, s>>>(ws.x.data(), ws.r.data(), ws.p.data(), ws.Ap.data(), alpha, n);
        CUDA_CHECK(cudaMemsetAsync(ws.d_dots.data(), 0, sizeof(double), s));
        dot<<<240, 256, 0, s>>>(ws.r.data(), ws.r.data(), ws.d_dots.data(), n);
        CUDA_CHECK(cudaMemcpyAsync(ws.h_dots, ws.d_dots.data(), sizeof(double), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        const double rr_new = ws.h_dots[0];
        update_p<<<B, T, 0, s>>>(ws.p.data(), ws.r.data(), rr_new / rr, n);
        rr = rr_new;
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::printf("CG: %d iterations, |r| = %.3e\n", it, std::sqrt(rr));
    return 0;
}
