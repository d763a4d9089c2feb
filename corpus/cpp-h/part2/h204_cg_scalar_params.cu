// case: conjugate-gradient loop on a non-blocking stream copies a small stack parameter struct up and a scalar convergence flag down with cudaMemcpyAsync on pageable stack memory; both are under the small-copy threshold and a device-to-pageable copy returns only once done, so reading the flag at once is fine.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>

struct CgParams {
    double alpha;
    double beta;
    double tol2;
    int n;
    int iter;
};

__global__ void axpy_update(const CgParams* p, double* x, double* r, const double* pvec, const double* ap) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    x[i] += p->alpha * pvec[i];
    r[i] -= p->alpha * ap[i];
}

__global__ void residual_check(const CgParams* p, const double* r, double* rr, int* converged) {
    __shared__ double part[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = (i < p->n) ? r[i] * r[i] : 0.0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(rr, part[0]);
    __threadfence();
    if (i == 0) *converged = (*rr < p->tol2);
}

class CgSolver {
public:
    explicit CgSolver(int n) : n_(n) {
        cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
        cudaMalloc(&d_params_, sizeof(CgParams));
        cudaMalloc(&d_x_, n_ * sizeof(double));
        cudaMalloc(&d_r_, n_ * sizeof(double));
        cudaMalloc(&d_p_, n_ * sizeof(double));
        cudaMalloc(&d_ap_, n_ * sizeof(double));
        cudaMalloc(&d_rr_, sizeof(double));
        cudaMalloc(&d_conv_, sizeof(int));
        cudaMemsetAsync(d_x_, 0, n_ * sizeof(double), stream_);
        cudaMemsetAsync(d_r_, 0, n_ * sizeof(double), stream_);
        cudaMemsetAsync(d_p_, 0, n_ * sizeof(double), stream_);
        cudaMemsetAsync(d_ap_, 0, n_ * sizeof(double), stream_);
    }
    ~CgSolver() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_params_); cudaFree(d_x_); cudaFree(d_r_); cudaFree(d_p_);
        cudaFree(d_ap_); cudaFree(d_rr_); cudaFree(d_conv_);
        cudaStreamDestroy(stream_);
    }

    int solve(int max_iter, double tol) {
        CgParams params{};
        params.n = n_;
        params.tol2 = tol * tol;
        int blocks = (n_ + 255) / 256;
        for (int it = 0; it < max_iter; ++it) {
            params.iter = it;
            params.alpha = 1.0 / (it + 2);
            params.beta = 0.5;
            cudaMemcpyAsync(d_params_, &params, sizeof(CgParams), cudaMemcpyHostToDevice, stream_);
            axpy_update<<<blocks, 256, 0, stream_>>>(d_params_, d_x_, d_r_, d_p_, d_ap_);
            cudaMemsetAsync(d_rr_, 0, sizeof(double), stream_);
            residual_check<<<blocks, 256, 0, stream_>>>(d_params_, d_r_, d_rr_, d_conv_);
            int converged = 0;
            cudaMemcpyAsync(&converged, d_conv_, sizeof(int), cudaMemcpyDeviceToHost, stream_);
            if (converged) return it;
        }
        return max_iter;
    }

private:
    int n_;
    cudaStream_t stream_{};
    CgParams* d_params_ = nullptr;
    double *d_x_ = nullptr, *d_r_ = nullptr, *d_p_ = nullptr, *d_ap_ = nullptr, *d_rr_ = nullptr;
    int* d_conv_ = nullptr;
};

int main() {
    CgSolver cg(1 << 20);
    printf("converged after %d iterations\n", cg.solve(500, 1e-8));
    return 0;
}
