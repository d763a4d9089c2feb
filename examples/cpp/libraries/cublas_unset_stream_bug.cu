// missing_sync through a library (bug): the input matrices are filled by a kernel on a
// non-blocking stream, but the cuBLAS handle was never given that stream (no cublasSetStream),
// so cublasSgemm runs on the legacy default stream, which does not wait for a non-blocking
// stream: the GEMM reads A and B before the fill has written them (pytorch #31537).
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)
#define CHECK_BLAS(call)                                                                \
    do {                                                                                \
        if ((call) != CUBLAS_STATUS_SUCCESS) {                                          \
            fprintf(stderr, "%s failed\n", #call);                                      \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define N 1024

// Slow on purpose, and on a few SMs only: it spins (about 0.1 s) before writing, as a long
// producer would take, leaving the rest of the GPU free for other work.
__global__ void fill_slowly(float* m, float value, int n) {
    long long start = clock64();
    while (clock64() - start < 200000000) {
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) m[i] = value;
}

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, N * N * sizeof(float)));
    CHECK(cudaMalloc(&b, N * N * sizeof(float)));
    CHECK(cudaMalloc(&c, N * N * sizeof(float)));
    CHECK(cudaMemset(a, 0, N * N * sizeof(float)));
    CHECK(cudaMemset(b, 0, N * N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));

    // A first GEMM allocates cuBLAS's workspace, which synchronizes the device: warm up first.
    const float one = 1.0f, zero = 0.0f;
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, N, b, N, &zero, c, N));
    CHECK(cudaDeviceSynchronize());

    fill_slowly<<<4, 256, 0, s>>>(a, 1.0f, N * N);
    fill_slowly<<<4, 256, 0, s>>>(b, 1.0f, N * N);
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, N, b, N, &zero, c, N));
    CHECK(cudaDeviceSynchronize());

    float* host = (float*)malloc(N * N * sizeof(float));
    CHECK(cudaMemcpy(host, c, N * N * sizeof(float), cudaMemcpyDeviceToHost));
    int right = 0;
    for (int i = 0; i < N * N; ++i) right += host[i] == (float)N;
    printf("cublas_unset_stream_bug: %d of %d results right\n", right, N * N);
    CHECK_BLAS(cublasDestroy(h));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaStreamDestroy(s));
    free(host);
    return 0;
}
