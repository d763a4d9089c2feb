// Sample covariance of a feature matrix (features x samples, column-major):
// means with a GEMV against a ones vector, centring kernel, C = Xc Xc^T / (n - 1) with a GEMM,
// all on the compute stream; the download goes on the copy stream, handed over with an event.
#include <cstdio>
#include <cstdlib>
#include <cmath>
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

__global__ void fill(float* v, int n, float value) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = value;
}

// x is features x samples, column-major: x[f + s * features]
__global__ void subtract_row_means(float* x, const float* mean, int features, int samples) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    const size_t total = static_cast<size_t>(features) * samples;
    if (i < total) x[i] -= mean[i % features];
}

int main(int argc, char** argv) {
    const int features = argc > 1 ? std::atoi(argv[1]) : 512;
    const int samples = argc > 2 ? std::atoi(argv[2]) : 20000;
    const size_t x_elems = static_cast<size_t>(features) * samples;
    const size_t c_elems = static_cast<size_t>(features) * features;

    cudaStream_t compute, copy;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    cudaEvent_t cov_ready, downloaded;
    CUDA_CHECK(cudaEventCreateWithFlags(&cov_ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&downloaded, cudaEventDisableTiming));

    cublasHandle_t blas;
    CUBLAS_CHECK(cublasCreate(&blas));
    CUBLAS_CHECK(cublasSetStream(blas, compute));

    float *h_x, *h_cov;
    CUDA_CHECK(cudaMallocHost(&h_x, x_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_cov, c_elems * sizeof(float)));
    for (size_t i = 0; i < x_elems; ++i)
        h_x[i] = std::sin(0.5f * static_cast<float>(i % features)) + 0.1f * std::cos(0.01f * static_cast<float>(i));

    float *d_x, *d_ones, *d_mean, *d_cov;
    CUDA_CHECK(cudaMalloc(&d_x, x_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_ones, samples * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_mean, features * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_cov, c_elems * sizeof(float)));

    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, x_elems * sizeof(float), cudaMemcpyHostToDevice, compute));
    fill<<<(samples + 255) / 256, 256, 0, compute>>>(d_ones, samples, 1.0f);
    CUDA_CHECK(cudaGetLastError());

    const float inv_n = 1.0f / samples, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemv(blas, CUBLAS_OP_N, features, samples, &inv_n, d_x, features,
                             d_ones, 1, &zero, d_mean, 1));
    const int blocks = static_cast<int>((x_elems + 255) / 256);
    subtract_row_means<<<blocks, 256, 0, compute>>>(d_x, d_mean, features, samples);
    CUDA_CHECK(cudaGetLastError());
    const float scale = 1.0f / (samples - 1);
    CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, features, features, samples, &scale,
                             d_x, features, d_x, features, &zero, d_cov, features));
    CUDA_CHECK(cudaEventRecord(cov_ready, compute));

    // The copy stream picks the matrix up once the GEMM that writes it is done.
    CUDA_CHECK(cudaStreamWaitEvent(copy, cov_ready, 0));
    CUDA_CHECK(cudaMemcpyAsync(h_cov, d_cov, c_elems * sizeof(float), cudaMemcpyDeviceToHost, copy));
    CUDA_CHECK(cudaEventRecord(downloaded, copy));
    CUDA_CHECK(cudaEventSynchronize(downloaded));

    double trace = 0.0;
    for (int f = 0; f < features; ++f) trace += h_cov[static_cast<size_t>(f) * features + f];
    std::printf("total variance %.6f over %d features\n", trace, features);

    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaFree(d_cov));
    CUDA_CHECK(cudaFree(d_mean));
    CUDA_CHECK(cudaFree(d_ones));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_cov));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUBLAS_CHECK(cublasDestroy(blas));
    CUDA_CHECK(cudaEventDestroy(downloaded));
    CUDA_CHECK(cudaEventDestroy(cov_ready));
    CUDA_CHECK(cudaStreamDestroy(copy));
    CUDA_CHECK(cudaStreamDestroy(compute));
    return 0;
}
