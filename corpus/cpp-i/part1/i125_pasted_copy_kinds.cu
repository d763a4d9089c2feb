// case: a sparse-matrix loader copies its row offsets from a std::vector with a pasted cudaMemcpyDeviceToDevice kind, and its value download helper states DeviceToHost for a copy into device memory
// expect: memcpy_kind_mismatch=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct CsrDevice {
    int rows, nnz;
    int* row_ptr;
    int* col_idx;
    float* vals;
    float* vals_backup;
};

__global__ void spmv(CsrDevice m, const float* x, float* y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m.rows) return;
    float acc = 0.f;
    for (int k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) acc += m.vals[k] * x[m.col_idx[k]];
    y[r] = acc;
}

static void snapshot_values(CsrDevice& m, float* pinned_scratch, cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(pinned_scratch, m.vals, m.nnz * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaMemcpyAsync(m.vals_backup, pinned_scratch, m.nnz * sizeof(float), cudaMemcpyDeviceToHost, s)); // EXPECT: memcpy_kind_mismatch
    CUDA_CHECK(cudaStreamSynchronize(s));
}

int main() {
    const int rows = 1 << 16, per_row = 4, nnz = rows * per_row;
    std::vector<int> row_ptr(rows + 1), col_idx(nnz);
    std::vector<float> vals(nnz, 0.25f), x(rows, 1.0f), y(rows);
    for (int r = 0; r <= rows; ++r) row_ptr[r] = r * per_row;
    for (int k = 0; k < nnz; ++k) col_idx[k] = (k * 7) % rows;

    CsrDevice m{rows, nnz, nullptr, nullptr, nullptr, nullptr};
    float *d_x, *d_y, *h_scratch;
    CUDA_CHECK(cudaMalloc(&m.row_ptr, (rows + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&m.col_idx, nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&m.vals, nnz * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&m.vals_backup, nnz * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x, rows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, rows * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_scratch, nnz * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(m.row_ptr, row_ptr.data(), (rows + 1) * sizeof(int), cudaMemcpyDeviceToDevice)); // EXPECT: memcpy_kind_mismatch
    CUDA_CHECK(cudaMemcpy(m.col_idx, col_idx.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(m.vals, vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), rows * sizeof(float), cudaMemcpyHostToDevice));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    snapshot_values(m, h_scratch, s);
    spmv<<<(rows + 255) / 256, 256, 0, s>>>(m, d_x, d_y);
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(y.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(vals.data(), m.vals_backup, nnz * sizeof(float), cudaMemcpyDeviceToHost));
    printf("y[0] = %.3f backup[0] = %.3f\n", y[0], vals[0]);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFreeHost(h_scratch));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(m.vals_backup));
    CUDA_CHECK(cudaFree(m.vals));
    CUDA_CHECK(cudaFree(m.col_idx));
    CUDA_CHECK(cudaFree(m.row_ptr));
    return 0;
}
