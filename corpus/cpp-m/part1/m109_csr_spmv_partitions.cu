// case: A CSR SpMV splits the matrix into row partitions, computes sub-pointers into the device arrays on the host (d_y + row_begin), logs the device addresses with %p and compares them with nullptr, but never dereferences them on the host; all results come back through cudaMemcpy; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "error %s at %s:%d\n", cudaGetErrorString(e_),    \
                         __FILE__, __LINE__);                                      \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

struct CsrDevice {
    int rows = 0, cols = 0, nnz = 0;
    int* d_row_ptr = nullptr;
    int* d_col_idx = nullptr;
    float* d_vals = nullptr;
};

struct Partition {
    int row_begin, row_end;
    const int* row_ptr;  // device address of row_ptr[row_begin]
    float* y;            // device address of y[row_begin]
};

__global__ void spmv_rows(int nrows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                          const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    float acc = 0.0f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[col_idx[k]];
    y[r] = acc;
}

static CsrDevice upload_laplacian_1d(int n) {
    std::vector<int> rp(n + 1), ci;
    std::vector<float> v;
    for (int r = 0; r < n; ++r) {
        rp[r] = int(ci.size());
        if (r > 0) { ci.push_back(r - 1); v.push_back(-1.0f); }
        ci.push_back(r); v.push_back(2.0f);
        if (r + 1 < n) { ci.push_back(r + 1); v.push_back(-1.0f); }
    }
    rp[n] = int(ci.size());
    CsrDevice A;
    A.rows = A.cols = n;
    A.nnz = int(ci.size());
    CUDA_CHECK(cudaMalloc(&A.d_row_ptr, rp.size() * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&A.d_col_idx, ci.size() * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&A.d_vals, v.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(A.d_row_ptr, rp.data(), rp.size() * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(A.d_col_idx, ci.data(), ci.size() * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(A.d_vals, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
    return A;
}

int main() {
    const int n = 1 << 20;
    const int parts = 4;
    CsrDevice A = upload_laplacian_1d(n);
    if (A.d_row_ptr == nullptr || A.d_vals == nullptr) return 1;
    std::printf("row_ptr @ %p, col_idx @ %p, vals @ %p (nnz=%d)\n",
                static_cast<void*>(A.d_row_ptr), static_cast<void*>(A.d_col_idx),
                static_cast<void*>(A.d_vals), A.nnz);

    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = float(i % 17);
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    std::vector<Partition> plan;
    const int rows_per_part = (n + parts - 1) / parts;
    for (int p = 0; p < parts; ++p) {
        int b = p * rows_per_part;
        int e = b + rows_per_part < n ? b + rows_per_part : n;
        plan.push_back(Partition{b, e, A.d_row_ptr + b, d_y + b});
    }
    for (const Partition& part : plan) {
        std::printf("partition rows [%d, %d): row_ptr %p, y %p\n", part.row_begin, part.row_end,
                    static_cast<const void*>(part.row_ptr), static_cast<void*>(part.y));
        int rows = part.row_end - part.row_begin;
        spmv_rows<<<(rows + 255) / 256, 256>>>(rows, part.row_ptr, A.d_col_idx, A.d_vals, d_x, part.y);
        CUDA_CHECK(cudaGetLastError());
    }

    std::vector<float> y(n);
    CUDA_CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    double norm = 0.0;
    for (float v : y) norm += double(v) * v;
    std::printf("||A x||^2 = %.3f, y[1] = %.1f\n", norm, y[1]);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(A.d_row_ptr));
    CUDA_CHECK(cudaFree(A.d_col_idx));
    CUDA_CHECK(cudaFree(A.d_vals));
    return 0;
}
