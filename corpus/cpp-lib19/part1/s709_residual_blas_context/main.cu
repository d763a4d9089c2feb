// Checks a batch of candidate solutions X of A X = B (many right-hand sides) by forming the
// residual R = A X - B on the GPU and reporting the relative Frobenius norm per column.
#include <cmath>
#include <cstdio>
#include <vector>
#include "blas_context.h"

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 2048;     // system size
    const int nrhs = argc > 2 ? std::atoi(argv[2]) : 128;   // right-hand sides
    const size_t a_elems = static_cast<size_t>(n) * n;
    const size_t x_elems = static_cast<size_t>(n) * nrhs;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t blas = make_blas_handle();

    float *h_a, *h_x, *h_b, *h_r;
    CUDA_CHECK(cudaMallocHost(&h_a, a_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_x, x_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_b, x_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_r, x_elems * sizeof(float)));
    for (size_t i = 0; i < a_elems; ++i) h_a[i] = (i % (n + 1) == 0) ? 4.0f : 0.001f * std::sin(static_cast<float>(i));
    for (size_t i = 0; i < x_elems; ++i) h_x[i] = std::cos(0.01f * static_cast<float>(i));
    for (size_t i = 0; i < x_elems; ++i) h_b[i] = 4.0f * h_x[i];

    float* d_a = upload(stream, h_a, a_elems);
    float* d_x = upload(stream, h_x, x_elems);
    float* d_r = upload(stream, h_b, x_elems);  // R starts as B

    // R = A X - R
    const float one = 1.0f, minus_one = -1.0f;
    CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, nrhs, n, &one,
                             d_a, n, d_x, n, &minus_one, d_r, n));

    CUDA_CHECK(cudaMemcpyAsync(h_r, d_r, x_elems * sizeof(float), cudaMemcpyDeviceToHost, stream));  // EXPECT: missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double worst = 0.0;
    for (int j = 0; j < nrhs; ++j) {
        double rr = 0.0, bb = 0.0;
        for (int i = 0; i < n; ++i) {
            const size_t k = static_cast<size_t>(j) * n + i;
            rr += static_cast<double>(h_r[k]) * h_r[k];
            bb += static_cast<double>(h_b[k]) * h_b[k];
        }
        worst = std::fmax(worst, std::sqrt(rr / bb));
    }
    std::printf("worst relative residual over %d right-hand sides: %.3e\n", nrhs, worst);

    CUDA_CHECK(cudaDeviceSynchronize());  // surface any asynchronous error before teardown
    CUDA_CHECK(cudaFree(d_r));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFreeHost(h_r));
    CUDA_CHECK(cudaFreeHost(h_b));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaFreeHost(h_a));
    CUBLAS_CHECK(cublasDestroy(blas));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
