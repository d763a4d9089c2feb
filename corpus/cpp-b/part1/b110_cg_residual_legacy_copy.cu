// case: conjugate-gradient residual check: the SpMV kernel runs on a cudaStreamNonBlocking stream and writes d_r, then a plain cudaMemcpy (legacy default stream, which does not wait for non-blocking streams) copies d_r back while the kernel may still write it
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct CsrMatrix {
    int rows = 0;
    int nnz = 0;
    int* d_row_ptr = nullptr;
    int* d_cols = nullptr;
    double* d_vals = nullptr;
};

__global__ void residual_spmv(CsrMatrix A, const double* x, const double* b, double* r) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= A.rows) return;
    double ax = 0.0;
    for (int k = A.d_row_ptr[row]; k < A.d_row_ptr[row + 1]; ++k) ax += A.d_vals[k] * x[A.d_cols[k]];
    r[row] = b[row] - ax;
}

static CsrMatrix make_laplacian_1d(int n) {
    std::vector<int> row_ptr(n + 1), cols;
    std::vector<double> vals;
    for (int i = 0; i < n; ++i) {
        row_ptr[i] = static_cast<int>(cols.size());
        if (i > 0) { cols.push_back(i - 1); vals.push_back(-1.0); }
        cols.push_back(i); vals.push_back(2.0);
        if (i + 1 < n) { cols.push_back(i + 1); vals.push_back(-1.0); }
    }
    row_ptr[n] = static_cast<int>(cols.size());
    CsrMatrix A;
    A.rows = n;
    A.nnz = static_cast<int>(cols.size());
    CUDA_CHECK(cudaMalloc(&A.d_row_ptr, (n + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&A.d_cols, A.nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&A.d_vals, A.nnz * sizeof(double)));
    CUDA_CHECK(cudaMemcpy(A.d_row_ptr, row_ptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(A.d_cols, cols.data(), A.nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(A.d_vals, vals.data(), A.nnz * sizeof(double), cudaMemcpyHostToDevice));
    return A;
}

int main() {
    const int n = 1 << 20;
    CsrMatrix A = make_laplacian_1d(n);
    double *d_x, *d_b, *d_r;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&d_r, n * sizeof(double)));
    CUDA_CHECK(cudaMemset(d_x, 0, n * sizeof(double)));
    CUDA_CHECK(cudaMemset(d_b, 0, n * sizeof(double)));
    CUDA_CHECK(cudaDeviceSynchronize()); // setup (uploads, memsets) complete

    cudaStream_t solver_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&solver_stream, cudaStreamNonBlocking));

    residual_spmv<<<(n + 255) / 256, 256, 0, solver_stream>>>(A, d_x, d_b, d_r);
    CUDA_CHECK(cudaGetLastError());

    std::vector<double> r(n);
    CUDA_CHECK(cudaMemcpy(r.data(), d_r, n * sizeof(double), cudaMemcpyDeviceToHost)); // EXPECT: missing_sync
    double norm = 0.0;
    for (double v : r) norm += v * v;
    std::printf("||r|| = %g\n", std::sqrt(norm));

    CUDA_CHECK(cudaStreamSynchronize(solver_stream));
    cudaStreamDestroy(solver_stream);
    cudaFree(d_r); cudaFree(d_b); cudaFree(d_x);
    cudaFree(A.d_vals); cudaFree(A.d_cols); cudaFree(A.d_row_ptr);
    return 0;
}
