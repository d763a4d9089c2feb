// case: CSR sparse matrix-vector product whose row-pointer array is allocated on the device for ROWS ints but uploaded with ROWS+1 entries
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,             \
                         cudaGetErrorString(err_));                             \
            std::exit(EXIT_FAILURE);                                            \
        }                                                                       \
    } while (0)

constexpr int kRows = 4096;
constexpr int kNnzPerRow = 5;
constexpr int kNnz = kRows * kNnzPerRow;

__global__ void spmv_csr(int rows, const int *row_ptr, const int *col_idx,
                         const float *vals, const float *x, float *y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float sum = 0.0f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
        sum += vals[k] * x[col_idx[k]];
    y[r] = sum;
}

int main()
{
    std::vector<int> h_row_ptr(kRows + 1);
    std::vector<int> h_col(kNnz);
    std::vector<float> h_val(kNnz), h_x(kRows, 1.0f), h_y(kRows);

    for (int r = 0; r <= kRows; ++r) h_row_ptr[r] = r * kNnzPerRow;
    for (int r = 0; r < kRows; ++r)
        for (int k = 0; k < kNnzPerRow; ++k) {
            h_col[r * kNnzPerRow + k] = (r + k - 2 + kRows) % kRows;
            h_val[r * kNnzPerRow + k] = (k == 2) ? 4.0f : -1.0f;
        }

    int *d_row_ptr, *d_col;
    float *d_val, *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_row_ptr, kRows * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_col, kNnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_val, kNnz * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x, kRows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, kRows * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_row_ptr, h_row_ptr.data(), (kRows + 1) * sizeof(int), cudaMemcpyHostToDevice)); // EXPECT: copy_out_of_bounds
    CUDA_CHECK(cudaMemcpy(d_col, h_col.data(), kNnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_val, h_val.data(), kNnz * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), kRows * sizeof(float), cudaMemcpyHostToDevice));

    spmv_csr<<<(kRows + 255) / 256, 256>>>(kRows, d_row_ptr, d_col, d_val, d_x, d_y);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, kRows * sizeof(float), cudaMemcpyDeviceToHost));

    double norm = 0.0;
    for (float v : h_y) norm += double(v) * v;
    std::printf("||y||^2 = %g\n", norm);

    CUDA_CHECK(cudaFree(d_row_ptr));
    CUDA_CHECK(cudaFree(d_col));
    CUDA_CHECK(cudaFree(d_val));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    return 0;
}
