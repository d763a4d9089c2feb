// case: a CSR SpMV benchmark uploads pinned arrays, multiplies and downloads y inside a lambda timed by a helper that waits on its stop event, then computes the residual on the host
// expect: none
#include "csr_matrix.cuh"
#include <cmath>

__global__ void spmv_csr(int rows, const int* __restrict__ row_ptr, const int* __restrict__ cols,
                         const double* __restrict__ vals, const double* __restrict__ x,
                         double* __restrict__ y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    double acc = 0.0;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[cols[k]];
    y[r] = acc;
}

// 1D Poisson matrix: 2 on the diagonal, -1 off it.
static void build_laplacian(CsrHost& A) {
    size_t k = 0;
    for (int r = 0; r < A.rows; ++r) {
        A.row_ptr[r] = (int)k;
        if (r > 0) { A.cols[k] = r - 1; A.vals[k++] = -1.0; }
        A.cols[k] = r; A.vals[k++] = 2.0;
        if (r + 1 < A.rows) { A.cols[k] = r + 1; A.vals[k++] = -1.0; }
    }
    A.row_ptr[A.rows] = (int)k;
}

int main() {
    const int n = 1 << 20;
    const size_t nnz = 3 * (size_t)n - 2;

    CsrHost hA(n, nnz);
    build_laplacian(hA);
    PinnedArray<double> hx(n), hy(n);
    for (int i = 0; i < n; ++i) hx[i] = 1.0;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    CsrDevice dA(hA);
    DeviceArray<double> dx(n), dy(n);

    float ms = time_on_stream(stream, [&] {
        dA.row_ptr.upload_async(hA.row_ptr, stream);
        dA.cols.upload_async(hA.cols, stream);
        dA.vals.upload_async(hA.vals, stream);
        dx.upload_async(hx, stream);
        spmv_csr<<<(n + 255) / 256, 256, 0, stream>>>(n, dA.row_ptr.data(), dA.cols.data(),
                                                      dA.vals.data(), dx.data(), dy.data());
        dy.download_async(hy, stream);
    });

    // A * ones is zero in the interior and 1 at both ends.
    double err = std::fabs(hy[0] - 1.0) + std::fabs(hy[n - 1] - 1.0);
    for (int i = 1; i < n - 1; ++i) err += std::fabs(hy[i]);
    std::printf("spmv %.3f ms, residual %.3e\n", ms, err);

    CUDA_CHECK(cudaStreamDestroy(stream));
    return err < 1e-9 ? 0 : 1;
}
