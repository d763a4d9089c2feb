// Conjugate gradients for the 2-D Poisson problem (5-point Laplacian, CSR) on one
// non-blocking stream. The SpMV is our kernel; dots, norms and vector updates are cuBLAS
// calls in the default host pointer mode, so each scalar is on the host when the call returns.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUBLAS_CHECK(call)                                                        \
    do {                                                                          \
        cublasStatus_t st_ = (call);                                              \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                       \
            std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, \
                         static_cast<int>(st_));                                  \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

__global__ void csr_spmv(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[col_idx[k]];
    y[r] = acc;
}

struct Csr {
    std::vector<int> row_ptr, col_idx;
    std::vector<float> vals;
};

static Csr poisson_2d(int g) {
    Csr m;
    m.row_ptr.push_back(0);
    for (int j = 0; j < g; ++j)
        for (int i = 0; i < g; ++i) {
            const int row = j * g + i;
            auto add = [&](int col, float v) { m.col_idx.push_back(col); m.vals.push_back(v); };
            if (j > 0) add(row - g, -1.f);
            if (i > 0) add(row - 1, -1.f);
            add(row, 4.f);
            if (i + 1 < g) add(row + 1, -1.f);
            if (j + 1 < g) add(row + g, -1.f);
            m.row_ptr.push_back(static_cast<int>(m.col_idx.size()));
        }
    return m;
}

int main(int argc, char** argv) {
    const int grid = argc > 1 ? std::atoi(argv[1]) : 512;
    const int n = grid * grid;
    const int max_iter = 2000;
    const float tol = 1e-5f;

    const Csr a = poisson_2d(grid);
    const int nnz = a.row_ptr[n];

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t blas;
    CUBLAS_CHECK(cublasCreate(&blas));
    CUBLAS_CHECK(cublasSetStream(blas, stream));

    int *d_row_ptr, *d_col_idx;
    float *d_vals, *d_x, *d_r, *d_p, *d_ap;
    CUDA_CHECK(cudaMalloc(&d_row_ptr, (n + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_col_idx, nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_vals, nnz * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_r, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_p, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_ap, n * sizeof(float)));

    float* h_rhs = nullptr;  // pinned: right-hand side in, solution out
    CUDA_CHECK(cudaMallocHost(&h_rhs, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_rhs[i] = 1.0f / n;

    // The matrix arrays are uploaded synchronously before any stream work is queued.
    CUDA_CHECK(cudaMemcpy(d_row_ptr, a.row_ptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_col_idx, a.col_idx.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vals, a.vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());

    // x0 = 0, r0 = b, p0 = r0
    CUDA_CHECK(cudaMemsetAsync(d_x, 0, n * sizeof(float), stream));
    CUDA_CHECK(cudaMemcpyAsync(d_r, h_rhs, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CUBLAS_CHECK(cublasScopy(blas, n, d_r, 1, d_p, 1));

    float bnorm = 0.f, rr = 0.f;
    CUBLAS_CHECK(cublasSnrm2(blas, n, d_r, 1, &bnorm));
    CUBLAS_CHECK(cublasSdot(blas, n, d_r, 1, d_r, 1, &rr));

    const int threads = 256, blocks = (n + threads - 1) / threads;
    int it = 0;
    for (; it < max_iter && std::sqrt(rr) > tol * bnorm; ++it) {
        csr_spmv<<<blocks, threads, 0, stream>>>(n, d_row_ptr, d_col_idx, d_vals, d_p, d_ap);
        CUDA_CHECK(cudaGetLastError());

        float pap = 0.f;
        CUBLAS_CHECK(cublasSdot(blas, n, d_p, 1, d_ap, 1, &pap));
        const float alpha = rr / pap, neg_alpha = -alpha;
        CUBLAS_CHECK(cublasSaxpy(blas, n, &alpha, d_p, 1, d_x, 1));
        CUBLAS_CHECK(cublasSaxpy(blas, n, &neg_alpha, d_ap, 1, d_r, 1));

        float rr_new = 0.f;
        CUBLAS_CHECK(cublasSdot(blas, n, d_r, 1, d_r, 1, &rr_new));
        const float beta = rr_new / rr;
        rr = rr_new;
        // p = r + beta p
        CUBLAS_CHECK(cublasSscal(blas, n, &beta, d_p, 1));
        const float one = 1.f;
        CUBLAS_CHECK(cublasSaxpy(blas, n, &one, d_r, 1, d_p, 1));
        if (it % 100 == 0) std::printf("iter %4d  |r|/|b| = %.3e\n", it, std::sqrt(rr) / bnorm);
    }

    CUDA_CHECK(cudaMemcpyAsync(h_rhs, d_x, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("CG: %d iterations, u(centre) = %.6e\n", it, h_rhs[(grid / 2) * grid + grid / 2]);

    CUDA_CHECK(cudaFree(d_ap));
    CUDA_CHECK(cudaFree(d_p));
    CUDA_CHECK(cudaFree(d_r));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_vals));
    CUDA_CHECK(cudaFree(d_col_idx));
    CUDA_CHECK(cudaFree(d_row_ptr));
    CUDA_CHECK(cudaFreeHost(h_rhs));
    CUBLAS_CHECK(cublasDestroy(blas));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
