// case: a helper class uploads the matrix from new[] memory with cudaMemcpyAsync (pageable), runs cublasSgemv on its stream and downloads y into a pinned buffer, then returns the norm computed from that buffer without synchronizing the stream
// expect: missing_sync=1, pageable_async_copy=1
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x) do { if ((x) != cudaSuccess) { fprintf(stderr, "cuda fail line %d\n", __LINE__); std::exit(1); } } while (0)
#define CHECK_BLAS(x) do { if ((x) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublas fail line %d\n", __LINE__); std::exit(1); } } while (0)

class GemvRunner {
public:
    GemvRunner(int rows, int cols) : rows_(rows), cols_(cols) {
        CHECK_CUDA(cudaStreamCreate(&stream_));
        CHECK_BLAS(cublasCreate(&handle_));
        CHECK_BLAS(cublasSetStream(handle_, stream_));
        CHECK_CUDA(cudaMalloc(&dA_, sizeof(float) * rows * cols));
        CHECK_CUDA(cudaMalloc(&dx_, sizeof(float) * cols));
        CHECK_CUDA(cudaMalloc(&dy_, sizeof(float) * rows));
        CHECK_CUDA(cudaMallocHost(&hy_, sizeof(float) * rows));
    }
    ~GemvRunner() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(hy_);
        cudaFree(dy_);
        cudaFree(dx_);
        cudaFree(dA_);
        cublasDestroy(handle_);
        cudaStreamDestroy(stream_);
    }
    void load(const float* hA, const float* hx) {
        CHECK_CUDA(cudaMemcpyAsync(dA_, hA, sizeof(float) * rows_ * cols_, cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
        CHECK_CUDA(cudaMemcpy(dx_, hx, sizeof(float) * cols_, cudaMemcpyHostToDevice));
    }
    float run_and_norm() {
        const float one = 1.f, zero = 0.f;
        CHECK_BLAS(cublasSgemv(handle_, CUBLAS_OP_N, rows_, cols_, &one, dA_, rows_, dx_, 1, &zero, dy_, 1));
        CHECK_CUDA(cudaMemcpyAsync(hy_, dy_, sizeof(float) * rows_, cudaMemcpyDeviceToHost, stream_));
        double ss = 0.0;
        for (int i = 0; i < rows_; ++i) ss += double(hy_[i]) * hy_[i]; // EXPECT: missing_sync
        return static_cast<float>(std::sqrt(ss));
    }
private:
    int rows_, cols_;
    cudaStream_t stream_;
    cublasHandle_t handle_;
    float *dA_, *dx_, *dy_, *hy_;
};

int main() {
    const int rows = 4096, cols = 2048;
    float* hA = new float[size_t(rows) * cols];
    float* hx = new float[cols];
    for (size_t i = 0; i < size_t(rows) * cols; ++i) hA[i] = 0.001f * (i % 1000);
    for (int j = 0; j < cols; ++j) hx[j] = 1.f;

    GemvRunner runner(rows, cols);
    runner.load(hA, hx);
    printf("||A x|| = %f\n", runner.run_and_norm());

    delete[] hx;
    delete[] hA;
    return 0;
}
