// case: a two-stream transfer engine waits on its upload stream through a helper, but the result was downloaded on the download stream, so the host reads it unsynchronized
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "error %d: %s\n", (int)e_, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

static void wait_stream(cudaStream_t s) {
    CUDA_CHECK(cudaStreamSynchronize(s));
}

struct TransferEngine {
    cudaStream_t upload;
    cudaStream_t download;
    cudaEvent_t uploaded;
};

int main() {
    const int n = 1 << 21;
    const size_t bytes = n * sizeof(float);
    TransferEngine eng;
    CUDA_CHECK(cudaStreamCreateWithFlags(&eng.upload, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&eng.download, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&eng.uploaded, cudaEventDisableTiming));

    float *hx, *hy, *dx, *dy;
    CUDA_CHECK(cudaMallocHost(&hx, bytes));
    CUDA_CHECK(cudaMallocHost(&hy, bytes));
    CUDA_CHECK(cudaMalloc(&dx, bytes));
    CUDA_CHECK(cudaMalloc(&dy, bytes));
    for (int i = 0; i < n; ++i) { hx[i] = 1.0f; hy[i] = (float)i; }

    CUDA_CHECK(cudaMemcpyAsync(dx, hx, bytes, cudaMemcpyHostToDevice, eng.upload));
    CUDA_CHECK(cudaMemcpyAsync(dy, hy, bytes, cudaMemcpyHostToDevice, eng.upload));
    CUDA_CHECK(cudaEventRecord(eng.uploaded, eng.upload));
    CUDA_CHECK(cudaStreamWaitEvent(eng.download, eng.uploaded, 0));

    saxpy<<<(n + 255) / 256, 256, 0, eng.download>>>(2.0f, dx, dy, n);
    CUDA_CHECK(cudaMemcpyAsync(hy, dy, bytes, cudaMemcpyDeviceToHost, eng.download));

    wait_stream(eng.upload);
    double err = 0.0;
    for (int i = 0; i < n; ++i) {
        double d = hy[i] - (2.0 + i); // EXPECT: missing_sync
        err += d < 0 ? -d : d;
    }
    printf("l1 error %.3f\n", err);

    wait_stream(eng.download);
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFreeHost(hy));
    CUDA_CHECK(cudaFreeHost(hx));
    CUDA_CHECK(cudaEventDestroy(eng.uploaded));
    CUDA_CHECK(cudaStreamDestroy(eng.download));
    CUDA_CHECK(cudaStreamDestroy(eng.upload));
    return 0;
}
