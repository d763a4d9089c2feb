// case: pipelined conjugate gradient that overlaps MPI_Iallreduce (MPI_IN_PLACE on pinned h_dots) with the preconditioner and SpMV kernels; MPI_Test is called once to drive progress and the host then reads h_dots[0] although the reduction may not have completed.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CALL(x)                                                                  \
    do {                                                                              \
        cudaError_t e_ = (x);                                                         \
        if (e_ != cudaSuccess) {                                                      \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                             \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

// Local operator: 1-D Laplacian with Dirichlet ends on this rank's block (block-Jacobi coupling).
__global__ void spmv(const double* __restrict__ x, double* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const double l = i > 0 ? x[i - 1] : 0.0;
        const double r = i < n - 1 ? x[i + 1] : 0.0;
        y[i] = 2.0 * x[i] - l - r + 1e-3 * x[i];
    }
}

__global__ void jacobi_precond(const double* __restrict__ r, double* __restrict__ z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = r[i] / 2.001;
}

// dots[0] += (r,u), dots[1] += (w,u)
__global__ void dot2(const double* __restrict__ r, const double* __restrict__ w,
                     const double* __restrict__ u, double* __restrict__ dots, int n) {
    double g = 0.0, d = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        g += r[i] * u[i];
        d += w[i] * u[i];
    }
    atomicAdd(&dots[0], g);
    atomicAdd(&dots[1], d);
}

__global__ void pipelined_update(double* __restrict__ x, double* __restrict__ r, double* __restrict__ u,
                                 double* __restrict__ w, double* __restrict__ p, double* __restrict__ s,
                                 double* __restrict__ q, double* __restrict__ z,
                                 const double* __restrict__ m, const double* __restrict__ nv,
                                 double alpha, double beta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        z[i] = nv[i] + beta * z[i];
        q[i] = m[i] + beta * q[i];
        s[i] = w[i] + beta * s[i];
        p[i] = u[i] + beta * p[i];
        x[i] += alpha * p[i];
        r[i] -= alpha * s[i];
        u[i] -= alpha * q[i];
        w[i] -= alpha * z[i];
    }
}

static double* device_zeros(size_t n) {
    double* v = nullptr;
    CUDA_CALL(cudaMalloc(&v, n * sizeof(double)));
    CUDA_CALL(cudaMemset(v, 0, n * sizeof(double)));
    return v;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    const int n = 1 << 20;
    const int maxit = 500;
    const double tol = 1e-8;
    const size_t vb = n * sizeof(double);

    double* x = device_zeros(n);
    double* r = device_zeros(n);
    double* u = device_zeros(n);
    double* w = device_zeros(n);
    double* p = device_zeros(n);
    double* s = device_zeros(n);
    double* q = device_zeros(n);
    double* z = device_zeros(n);
    double* m = device_zeros(n);
    double* nv = device_zeros(n);
    double* dots = device_zeros(2);
    double* h_dots = nullptr;
    CUDA_CALL(cudaMallocHost(&h_dots, 2 * sizeof(double)));

    // b = 1, x0 = 0: r0 = b, u0 = M^-1 r0, w0 = A u0
    std::vector<double> b(n, 1.0);
    CUDA_CALL(cudaMemcpy(r, b.data(), vb, cudaMemcpyHostToDevice));

    cudaStream_t st;
    CUDA_CALL(cudaStreamCreate(&st));
    const int tpb = 256, nb = (n + tpb - 1) / tpb;
    jacobi_precond<<<nb, tpb, 0, st>>>(r, u, n);
    spmv<<<nb, tpb, 0, st>>>(u, w, n);

    double gamma_old = 0.0, alpha_old = 1.0;
    int it = 0;
    for (; it < maxit; ++it) {
        CUDA_CALL(cudaMemsetAsync(dots, 0, 2 * sizeof(double), st));
        dot2<<<128, tpb, 0, st>>>(r, w, u, dots, n);
        CUDA_CALL(cudaMemcpyAsync(h_dots, dots, 2 * sizeof(double), cudaMemcpyDeviceToHost, st));
        CUDA_CALL(cudaStreamSynchronize(st));

        MPI_Request req;
        MPI_Iallreduce(MPI_IN_PLACE, h_dots, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);

        // Overlap: m = M^-1 w, n = A m
        jacobi_precond<<<nb, tpb, 0, st>>>(w, m, n);
        spmv<<<nb, tpb, 0, st>>>(m, nv, n);

        int done = 0;
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);   // let the library progress the reduction
        const double gamma = h_dots[0]; // EXPECT: missing_sync
        const double delta = h_dots[1];

        double alpha, beta;
        if (it == 0) {
            beta = 0.0;
            alpha = gamma / delta;
        } else {
            beta = gamma / gamma_old;
            alpha = gamma / (delta - beta * gamma / alpha_old);
        }
        pipelined_update<<<nb, tpb, 0, st>>>(x, r, u, w, p, s, q, z, m, nv, alpha, beta, n);
        gamma_old = gamma;
        alpha_old = alpha;

        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (std::sqrt(std::fabs(gamma)) < tol) break;
    }
    CUDA_CALL(cudaStreamSynchronize(st));

    std::vector<double> hx(n);
    CUDA_CALL(cudaMemcpy(hx.data(), x, vb, cudaMemcpyDeviceToHost));
    if (rank == 0) std::printf("iterations %d, x[n/2] = %.8f\n", it, hx[n / 2]);

    CUDA_CALL(cudaFree(x));
    CUDA_CALL(cudaFree(r));
    CUDA_CALL(cudaFree(u));
    CUDA_CALL(cudaFree(w));
    CUDA_CALL(cudaFree(p));
    CUDA_CALL(cudaFree(s));
    CUDA_CALL(cudaFree(q));
    CUDA_CALL(cudaFree(z));
    CUDA_CALL(cudaFree(m));
    CUDA_CALL(cudaFree(nv));
    CUDA_CALL(cudaFree(dots));
    CUDA_CALL(cudaFreeHost(h_dots));
    CUDA_CALL(cudaStreamDestroy(st));
    MPI_Finalize();
    return 0;
}
