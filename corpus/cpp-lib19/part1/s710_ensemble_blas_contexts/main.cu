// Scores two request queues against one shared embedding layer concurrently: each queue has
// its own stream and its own cuBLAS handle; the weights are shared and only read.
#include <cmath>
#include <cstdio>
#include "blas_util.h"

int main() {
    const int in_dim = 1024, out_dim = 512, batch_a = 384, batch_b = 640;
    const size_t w_elems = static_cast<size_t>(out_dim) * in_dim;
    const size_t xa_elems = static_cast<size_t>(in_dim) * batch_a;
    const size_t xb_elems = static_cast<size_t>(in_dim) * batch_b;
    const size_t ya_elems = static_cast<size_t>(out_dim) * batch_a;
    const size_t yb_elems = static_cast<size_t>(out_dim) * batch_b;

    cudaStream_t stream_a, stream_b;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
    cublasHandle_t blas_a = make_blas_handle(stream_a);
    cublasHandle_t blas_b = make_blas_handle(stream_b);

    float *h_w, *h_bias, *h_xa, *h_xb, *h_ya, *h_yb;
    CUDA_CHECK(cudaMallocHost(&h_w, w_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_bias, out_dim * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_xa, xa_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_xb, xb_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_ya, ya_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_yb, yb_elems * sizeof(float)));
    for (size_t i = 0; i < w_elems; ++i) h_w[i] = 0.03f * std::sin(0.17f * static_cast<float>(i % 4093));
    for (int i = 0; i < out_dim; ++i) h_bias[i] = 0.01f * (i % 7);
    for (size_t i = 0; i < xa_elems; ++i) h_xa[i] = std::cos(0.05f * static_cast<float>(i % 1021));
    for (size_t i = 0; i < xb_elems; ++i) h_xb[i] = std::sin(0.02f * static_cast<float>(i % 2039));

    float *d_w, *d_bias, *d_xa, *d_xb, *d_ya, *d_yb;
    CUDA_CHECK(cudaMalloc(&d_w, w_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_bias, out_dim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_xa, xa_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_xb, xb_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_ya, ya_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_yb, yb_elems * sizeof(float)));

    // Shared parameters: loaded once, before either queue starts.
    CUDA_CHECK(cudaMemcpyAsync(d_w, h_w, w_elems * sizeof(float), cudaMemcpyHostToDevice, stream_a));
    CUDA_CHECK(cudaMemcpyAsync(d_bias, h_bias, out_dim * sizeof(float), cudaMemcpyHostToDevice, stream_a));
    CUDA_CHECK(cudaStreamSynchronize(stream_a));

    const float one = 1.0f, zero = 0.0f;

    // Queue A
    CUDA_CHECK(cudaMemcpyAsync(d_xa, h_xa, xa_elems * sizeof(float), cudaMemcpyHostToDevice, stream_a));
    CUBLAS_CHECK(cublasSgemm(blas_a, CUBLAS_OP_N, CUBLAS_OP_N, out_dim, batch_a, in_dim, &one,
                             d_w, out_dim, d_xa, in_dim, &zero, d_ya, out_dim));
    add_bias_tanh<<<static_cast<unsigned>((ya_elems + 255) / 256), 256, 0, stream_a>>>(d_ya, d_bias, out_dim, batch_a);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_ya, d_ya, ya_elems * sizeof(float), cudaMemcpyDeviceToHost, stream_a));

    // Queue B: same weights, read concurrently on the other stream
    CUDA_CHECK(cudaMemcpyAsync(d_xb, h_xb, xb_elems * sizeof(float), cudaMemcpyHostToDevice, stream_b));
    CUBLAS_CHECK(cublasSgemm(blas_b, CUBLAS_OP_N, CUBLAS_OP_N, out_dim, batch_b, in_dim, &one,
                             d_w, out_dim, d_xb, in_dim, &zero, d_yb, out_dim));
    add_bias_tanh<<<static_cast<unsigned>((yb_elems + 255) / 256), 256, 0, stream_b>>>(d_yb, d_bias, out_dim, batch_b);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_yb, d_yb, yb_elems * sizeof(float), cudaMemcpyDeviceToHost, stream_b));

    CUDA_CHECK(cudaStreamSynchronize(stream_a));
    double sum_a = 0.0;
    for (size_t i = 0; i < ya_elems; ++i) sum_a += h_ya[i];
    CUDA_CHECK(cudaStreamSynchronize(stream_b));
    double sum_b = 0.0;
    for (size_t i = 0; i < yb_elems; ++i) sum_b += h_yb[i];
    std::printf("queue A mean activation %.5f, queue B mean activation %.5f\n",
                sum_a / ya_elems, sum_b / yb_elems);

    CUDA_CHECK(cudaFree(d_yb));
    CUDA_CHECK(cudaFree(d_ya));
    CUDA_CHECK(cudaFree(d_xb));
    CUDA_CHECK(cudaFree(d_xa));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFreeHost(h_yb));
    CUDA_CHECK(cudaFreeHost(h_ya));
    CUDA_CHECK(cudaFreeHost(h_xb));
    CUDA_CHECK(cudaFreeHost(h_xa));
    CUDA_CHECK(cudaFreeHost(h_bias));
    CUDA_CHECK(cudaFreeHost(h_w));
    CUBLAS_CHECK(cublasDestroy(blas_b));
    CUBLAS_CHECK(cublasDestroy(blas_a));
    CUDA_CHECK(cudaStreamDestroy(stream_b));
    CUDA_CHECK(cudaStreamDestroy(stream_a));
    return 0;
}
