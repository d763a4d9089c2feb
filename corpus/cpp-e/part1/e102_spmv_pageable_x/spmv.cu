// case: A CSR SpMV driver uploads its 1 MiB right-hand side from a std::vector with cudaMemcpyAsync inside DeviceCsr::set_x (header), a pageable async copy; the result comes back into cudaMallocHost memory and is read after a synchronize.
// expect: pageable_async_copy=1
#include "csr_device.h"
#include <cmath>

constexpr int kRows = 1 << 18;
constexpr int kPerRow = 8;

__global__ void spmv_csr(int rows, const int* row_ptr, const int* col_idx, const float* vals,
                         const float* x, float* y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[col_idx[k]];
    y[r] = acc;
}

static HostCsr make_banded(int rows)
{
    HostCsr m;
    m.rows = rows;
    m.row_ptr.reserve(rows + 1);
    m.row_ptr.push_back(0);
    for (int r = 0; r < rows; ++r) {
        for (int j = 0; j < kPerRow; ++j) {
            m.col_idx.push_back((r + j * 37) % rows);
            m.vals.push_back(j == 0 ? 4.0f : -0.5f);
        }
        m.row_ptr.push_back((int)m.col_idx.size());
    }
    return m;
}

int main()
{
    HostCsr host = make_banded(kRows);
    DeviceCsr dev(host);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::vector<float> x(kRows, 1.0f);
    float* y_host = nullptr;
    CUDA_CHECK(cudaMallocHost(&y_host, kRows * sizeof(float)));

    dev.set_x(x, stream);
    spmv_csr<<<(kRows + 255) / 256, 256, 0, stream>>>(dev.rows(), dev.row_ptr(), dev.col_idx(),
                                                      dev.vals(), dev.x(), dev.y());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(y_host, dev.y(), kRows * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double norm = 0.0;
    for (int r = 0; r < kRows; ++r) norm += (double)y_host[r] * y_host[r];
    std::printf("||Ax|| = %f\n", std::sqrt(norm));

    CUDA_CHECK(cudaFreeHost(y_host));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
