// case: pipelined CG with a CUDA-aware MPI_Iallreduce from device d_local into device d_global, overlapped with the preconditioner and SpMV on other vectors and with a kernel that only reads d_local; MPI_Wait completes it before the update kernel reads d_global and before the host copy of the scalars: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void gpu_assert(cudaError_t code, const char* file, int line) {
    if (code != cudaSuccess) {
        std::fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        MPI_Abort(MPI_COMM_WORLD, code);
        std::exit(code);
    }
}
#define GPU(x) gpu_assert((x), __FILE__, __LINE__)

__global__ void apply_A(const double* __restrict__ x, double* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.01 * x[i] - (i > 0 ? x[i - 1] : 0.0) - (i + 1 < n ? x[i + 1] : 0.0);
}

__global__ void apply_M(const double* __restrict__ r, double* __restrict__ z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = r[i] * (1.0 / 2.01);
}

__global__ void local_dots(const double* __restrict__ r, const double* __restrict__ w,
                           const double* __restrict__ u, double* __restrict__ out, int n) {
    double g = 0.0, d = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        g += r[i] * u[i];
        d += w[i] * u[i];
    }
    atomicAdd(&out[0], g);
    atomicAdd(&out[1], d);
}

// Keeps the rank-local contributions for the convergence report.
__global__ void record_local(const double* __restrict__ local, double* __restrict__ history, int it) {
    if (threadIdx.x == 0 && blockIdx.x == 0) history[it] = local[0];
}

// Scalars come from device memory: alpha and beta are computed by every thread.
__global__ void update(const double* __restrict__ glob, double* __restrict__ state,
                       double* __restrict__ x, double* __restrict__ r, double* __restrict__ u,
                       double* __restrict__ w, double* __restrict__ p, double* __restrict__ s,
                       double* __restrict__ q, double* __restrict__ z,
                       const double* __restrict__ m, const double* __restrict__ nv, int n, int first) {
    const double gamma = glob[0], delta = glob[1];
    const double beta = first ? 0.0 : gamma / state[0];
    const double alpha = first ? gamma / delta : gamma / (delta - beta * gamma / state[1]);
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

__global__ void save_state(const double* __restrict__ glob, double* __restrict__ state, int first) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        const double gamma = glob[0], delta = glob[1];
        const double beta = first ? 0.0 : gamma / state[0];
        state[1] = first ? gamma / delta : gamma / (delta - beta * gamma / state[1]);
        state[0] = gamma;
    }
}

struct Vectors {
    double *x, *r, *u, *w, *p, *s, *q, *z, *m, *nv;
};

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int n = 1 << 20, maxit = 300;
    const size_t vb = n * sizeof(double);

    Vectors v;
    GPU(cudaMalloc(&v.x, vb));
    GPU(cudaMalloc(&v.r, vb));
    GPU(cudaMalloc(&v.u, vb));
    GPU(cudaMalloc(&v.w, vb));
    GPU(cudaMalloc(&v.p, vb));
    GPU(cudaMalloc(&v.s, vb));
    GPU(cudaMalloc(&v.q, vb));
    GPU(cudaMalloc(&v.z, vb));
    GPU(cudaMalloc(&v.m, vb));
    GPU(cudaMalloc(&v.nv, vb));
    GPU(cudaMemset(v.x, 0, vb));
    GPU(cudaMemset(v.p, 0, vb));
    GPU(cudaMemset(v.s, 0, vb));
    GPU(cudaMemset(v.q, 0, vb));
    GPU(cudaMemset(v.z, 0, vb));
    GPU(cudaMemset(v.m, 0, vb));
    GPU(cudaMemset(v.nv, 0, vb));

    double *d_local, *d_global, *d_state, *d_history;
    GPU(cudaMalloc(&d_local, 2 * sizeof(double)));
    GPU(cudaMalloc(&d_global, 2 * sizeof(double)));
    GPU(cudaMalloc(&d_state, 2 * sizeof(double)));
    GPU(cudaMalloc(&d_history, maxit * sizeof(double)));
    GPU(cudaMemset(d_global, 0, 2 * sizeof(double)));
    GPU(cudaMemset(d_state, 0, 2 * sizeof(double)));
    GPU(cudaMemset(d_history, 0, maxit * sizeof(double)));
    double* h_gamma;
    GPU(cudaMallocHost(&h_gamma, sizeof(double)));

    std::vector<double> b(n, 1.0);
    GPU(cudaMemcpy(v.r, b.data(), vb, cudaMemcpyHostToDevice));

    cudaStream_t s;
    GPU(cudaStreamCreate(&s));
    const int tb = 256, nb = (n + tb - 1) / tb;
    apply_M<<<nb, tb, 0, s>>>(v.r, v.u, n);
    apply_A<<<nb, tb, 0, s>>>(v.u, v.w, n);

    int it = 0;
    for (; it < maxit; ++it) {
        GPU(cudaMemsetAsync(d_local, 0, 2 * sizeof(double), s));
        local_dots<<<128, tb, 0, s>>>(v.r, v.w, v.u, d_local, n);
        GPU(cudaStreamSynchronize(s));

        MPI_Request req;
        MPI_Iallreduce(d_local, d_global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        apply_M<<<nb, tb, 0, s>>>(v.w, v.m, n);
        apply_A<<<nb, tb, 0, s>>>(v.m, v.nv, n);
        record_local<<<1, 32, 0, s>>>(d_local, d_history, it);
        MPI_Wait(&req, MPI_STATUS_IGNORE);

        update<<<nb, tb, 0, s>>>(d_global, d_state, v.x, v.r, v.u, v.w, v.p, v.s, v.q, v.z, v.m, v.nv, n, it == 0);
        save_state<<<1, 32, 0, s>>>(d_global, d_state, it == 0);
        GPU(cudaMemcpyAsync(h_gamma, d_global, sizeof(double), cudaMemcpyDeviceToHost, s));
        GPU(cudaStreamSynchronize(s));
        if (std::sqrt(std::fabs(*h_gamma)) < 1e-8) break;
    }

    std::vector<double> hist(maxit), x(n);
    GPU(cudaMemcpy(hist.data(), d_history, maxit * sizeof(double), cudaMemcpyDeviceToHost));
    GPU(cudaMemcpy(x.data(), v.x, vb, cudaMemcpyDeviceToHost));
    if (rank == 0) std::printf("%d iterations, local gamma[0] = %.4e, x[0] = %.6f\n", it, hist[0], x[0]);

    GPU(cudaFree(v.x));
    GPU(cudaFree(v.r));
    GPU(cudaFree(v.u));
    GPU(cudaFree(v.w));
    GPU(cudaFree(v.p));
    GPU(cudaFree(v.s));
    GPU(cudaFree(v.q));
    GPU(cudaFree(v.z));
    GPU(cudaFree(v.m));
    GPU(cudaFree(v.nv));
    GPU(cudaFree(d_local));
    GPU(cudaFree(d_global));
    GPU(cudaFree(d_state));
    GPU(cudaFree(d_history));
    GPU(cudaFreeHost(h_gamma));
    GPU(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
