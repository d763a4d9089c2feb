// case: distributed conjugate gradient for the 1-D Laplacian on the legacy stream; every dot product's partial sum is copied back with a blocking cudaMemcpy before MPI_Allreduce of the host scalar, and the edge values of p likewise, so MPI never sees memory a kernel is still using.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>
#include "cg_kernels.cuh"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 18, max_iters = 500;
    const double tol = 1e-10;
    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    const size_t bytes = n * sizeof(double);

    std::vector<double> h_b(n);
    for (int i = 0; i < n; ++i) h_b[i] = sin(0.001 * (rank * n + i));

    double *d_x, *d_r, *d_p, *d_Ap, *d_scratch;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_r, bytes));
    CHECK(cudaMalloc(&d_p, bytes));
    CHECK(cudaMalloc(&d_Ap, bytes));
    CHECK(cudaMalloc(&d_scratch, sizeof(double)));
    CHECK(cudaMemset(d_x, 0, bytes));
    CHECK(cudaMemset(d_Ap, 0, bytes));
    CHECK(cudaMemcpy(d_r, h_b.data(), bytes, cudaMemcpyHostToDevice));  // x = 0: r = b
    CHECK(cudaMemcpy(d_p, h_b.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());

    const int nb = (n + kThreads - 1) / kThreads;
    double rr = global_dot(d_r, d_r, d_scratch, n);
    const double rr0 = rr;
    int it = 0;
    for (; it < max_iters && rr > tol * tol * rr0; ++it) {
        double gl, gr;
        exchange_edges(d_p, n, left, right, &gl, &gr);
        laplacian<<<nb, kThreads>>>(d_p, d_Ap, n, gl, gr);
        double pAp = global_dot(d_p, d_Ap, d_scratch, n);
        double alpha = rr / pAp;
        update_xr<<<nb, kThreads>>>(d_x, d_r, d_p, d_Ap, alpha, n);
        double rr_new = global_dot(d_r, d_r, d_scratch, n);
        update_p<<<nb, kThreads>>>(d_p, d_r, rr_new / rr, n);
        rr = rr_new;
    }
    if (rank == 0) printf("CG: %d iterations, relative residual %.3e\n", it, sqrt(rr / rr0));

    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_r));
    CHECK(cudaFree(d_p));
    CHECK(cudaFree(d_Ap));
    CHECK(cudaFree(d_scratch));
    MPI_Finalize();
    return 0;
}
