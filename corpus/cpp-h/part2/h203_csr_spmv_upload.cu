// case: CSR SpMV solver class uploads its nonzero values from a std::vector member with cudaMemcpyAsync (pageable, size known only at run time); the pinned-values path exists only under an #ifdef the default build leaves off.
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <vector>
#include <cstdio>

template <typename T>
__global__ void spmv_csr(int rows, const int* rp, const int* ci, const T* v, const T* x, T* y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    T acc = 0;
    for (int k = rp[r]; k < rp[r + 1]; ++k) acc += v[k] * x[ci[k]];
    y[r] = acc;
}

template <typename T>
class CsrMatrix {
public:
    CsrMatrix(int rows, std::vector<int> rp, std::vector<int> ci, std::vector<T> vals)
        : rows_(rows), row_ptr_(std::move(rp)), col_idx_(std::move(ci)), values_(std::move(vals)) {
        cudaStreamCreate(&stream_);   // blocking stream: ordered with the legacy default stream
        nnz_ = values_.size();
        cudaMalloc(&d_rp_, (rows_ + 1) * sizeof(int));
        cudaMalloc(&d_ci_, nnz_ * sizeof(int));
        cudaMalloc(&d_v_, nnz_ * sizeof(T));
        cudaMalloc(&d_x_, rows_ * sizeof(T));
        cudaMalloc(&d_y_, rows_ * sizeof(T));
        cudaMallocHost(&h_x_, rows_ * sizeof(T));
        cudaMallocHost(&h_y_, rows_ * sizeof(T));
    }
    ~CsrMatrix() {
        cudaFree(d_rp_); cudaFree(d_ci_); cudaFree(d_v_); cudaFree(d_x_); cudaFree(d_y_);
        cudaFreeHost(h_x_); cudaFreeHost(h_y_);
        cudaStreamDestroy(stream_);
    }

    void upload() {
        cudaMemcpy(d_rp_, row_ptr_.data(), (rows_ + 1) * sizeof(int), cudaMemcpyHostToDevice);
        cudaMemcpy(d_ci_, col_idx_.data(), nnz_ * sizeof(int), cudaMemcpyHostToDevice);
#ifdef CSR_PIN_VALUES
        cudaHostRegister(values_.data(), nnz_ * sizeof(T), cudaHostRegisterDefault);
#endif
        cudaMemcpyAsync(d_v_, values_.data(), nnz_ * sizeof(T), cudaMemcpyHostToDevice, stream_);
    }

    T multiply_and_norm(const std::vector<T>& x) {
        for (int i = 0; i < rows_; ++i) h_x_[i] = x[i];
        cudaMemcpyAsync(d_x_, h_x_, rows_ * sizeof(T), cudaMemcpyHostToDevice, stream_);
        spmv_csr<T><<<(rows_ + 127) / 128, 128, 0, stream_>>>(rows_, d_rp_, d_ci_, d_v_, d_x_, d_y_);
        cudaMemcpyAsync(h_y_, d_y_, rows_ * sizeof(T), cudaMemcpyDeviceToHost, stream_);
        cudaStreamSynchronize(stream_);
        T n2 = 0;
        for (int i = 0; i < rows_; ++i) n2 += h_y_[i] * h_y_[i];
        return n2;
    }

private:
    int rows_;
    size_t nnz_ = 0;
    std::vector<int> row_ptr_, col_idx_;
    std::vector<T> values_;
    cudaStream_t stream_{};
    int *d_rp_ = nullptr, *d_ci_ = nullptr;
    T *d_v_ = nullptr, *d_x_ = nullptr, *d_y_ = nullptr;
    T *h_x_ = nullptr, *h_y_ = nullptr;
};

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    std::vector<int> rp(n + 1), ci;
    std::vector<double> v;
    for (int r = 0; r < n; ++r) {
        rp[r] = static_cast<int>(ci.size());
        for (int d = -1; d <= 1; ++d)
            if (r + d >= 0 && r + d < n) { ci.push_back(r + d); v.push_back(d == 0 ? 2.0 : -1.0); }
    }
    rp[n] = static_cast<int>(ci.size());
    CsrMatrix<double> A(n, rp, ci, v);
    A.upload();
    std::vector<double> x(n, 1.0);
    printf("|Ax|^2 = %f\n", A.multiply_and_norm(x));
    return 0;
}
