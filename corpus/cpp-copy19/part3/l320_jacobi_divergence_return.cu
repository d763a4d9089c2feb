// case: a Jacobi solver returns -2 as soon as the residual becomes NaN, skipping the cudaFree of its matrix, right-hand side and both iterate vectors
// expect: device_memory_leak=4
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define SIZE 1024
#define MAX_SWEEPS 500
#define TOL 1e-6

__global__ void jacobi_sweep(const double* A, const double* b, const double* x_old,
                             double* x_new, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double sigma = 0.0;
    for (int j = 0; j < n; ++j)
        if (j != i) sigma += A[i * n + j] * x_old[j];
    x_new[i] = (b[i] - sigma) / A[i * n + i];
}

static double host_residual(const std::vector<double>& A, const std::vector<double>& b,
                            const std::vector<double>& x) {
    double r2 = 0.0;
    for (int i = 0; i < SIZE; ++i) {
        double ax = 0.0;
        for (int j = 0; j < SIZE; ++j) ax += A[i * SIZE + j] * x[j];
        r2 += (b[i] - ax) * (b[i] - ax);
    }
    return sqrt(r2);
}

int jacobi_solve(const std::vector<double>& A, const std::vector<double>& b,
                 std::vector<double>& x) {
    double *d_A, *d_b, *d_x, *d_xn;
    cudaMalloc(&d_A, sizeof(double) * SIZE * SIZE); // EXPECT: device_memory_leak
    cudaMalloc(&d_b, sizeof(double) * SIZE); // EXPECT: device_memory_leak
    cudaMalloc(&d_x, sizeof(double) * SIZE); // EXPECT: device_memory_leak
    cudaMalloc(&d_xn, sizeof(double) * SIZE); // EXPECT: device_memory_leak
    cudaMemcpy(d_A, A.data(), sizeof(double) * SIZE * SIZE, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b.data(), sizeof(double) * SIZE, cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x.data(), sizeof(double) * SIZE, cudaMemcpyHostToDevice);

    const int tpb = 256, blocks = (SIZE + tpb - 1) / tpb;
    int sweep = 0;
    for (; sweep < MAX_SWEEPS; sweep += 2) {
        jacobi_sweep<<<blocks, tpb>>>(d_A, d_b, d_x, d_xn, SIZE);
        jacobi_sweep<<<blocks, tpb>>>(d_A, d_b, d_xn, d_x, SIZE);
        cudaMemcpy(x.data(), d_x, sizeof(double) * SIZE, cudaMemcpyDeviceToHost);
        double r = host_residual(A, b, x);
        if (std::isnan(r)) {
            fprintf(stderr, "jacobi diverged at sweep %d\n", sweep);
            return -2;
        }
        if (r < TOL) break;
    }

    cudaFree(d_A);
    cudaFree(d_b);
    cudaFree(d_x);
    cudaFree(d_xn);
    return sweep;
}

int main() {
    std::vector<double> A(SIZE * SIZE, 0.0), b(SIZE, 1.0), x(SIZE, 0.0);
    for (int i = 0; i < SIZE; ++i) {
        A[i * SIZE + i] = 4.0;
        if (i > 0) A[i * SIZE + i - 1] = -1.0;
        if (i + 1 < SIZE) A[i * SIZE + i + 1] = -1.0;
    }
    int sweeps = jacobi_solve(A, b, x);
    if (sweeps < 0) return 1;
    printf("converged in %d sweeps, x[0] = %f\n", sweeps, x[0]);
    return 0;
}
