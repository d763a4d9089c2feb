// case: a benchmark harness brackets a stencil and its pinned readback with timing events and calls cudaEventSynchronize on the stop event before reading the result and the elapsed time
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void jacobi_step(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) { if (i == 0 || i == n - 1) out[i] = in[i]; return; }
    out[i] = 0.5f * (in[i - 1] + in[i + 1]);
}

struct Timer {
    cudaEvent_t start, stop;
    Timer() {
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
    }
    ~Timer() {
        cudaEventDestroy(stop);
        cudaEventDestroy(start);
    }
    float elapsed_ms() {
        float ms = 0.f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return ms;
    }
};

int main() {
    const int n = 1 << 24;
    const int iters = 50;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    float *h_u, *d_a, *d_b;
    CUDA_CHECK(cudaMallocHost(&h_u, bytes));
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    for (int i = 0; i < n; ++i) h_u[i] = (i == 0) ? 1.0f : 0.0f;
    CUDA_CHECK(cudaMemcpyAsync(d_a, h_u, bytes, cudaMemcpyHostToDevice, s));

    Timer t;
    CUDA_CHECK(cudaEventRecord(t.start, s));
    for (int it = 0; it < iters; ++it) {
        jacobi_step<<<(n + 255) / 256, 256, 0, s>>>(d_a, d_b, n);
        float* tmp = d_a; d_a = d_b; d_b = tmp;
    }
    CUDA_CHECK(cudaMemcpyAsync(h_u, d_a, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaEventRecord(t.stop, s));
    CUDA_CHECK(cudaEventSynchronize(t.stop));

    double mass = 0.0;
    for (int i = 0; i < 64; ++i) mass += h_u[i];
    float ms = t.elapsed_ms();
    printf("%d sweeps in %.3f ms (%.2f GB/s), head mass %.5f\n", iters, ms,
           2.0 * bytes * iters / (ms * 1e6), mass);

    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFreeHost(h_u));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
