// case: a normalization kernel runs on a non-blocking stream and the result is fetched with a plain cudaMemcpy on the legacy default stream, which does not wait for that stream
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t st = (call); if (st != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(st)); std::abort(); } } while (0)

__global__ void normalize_rows(const float* in, float* out, int rows, int cols) {
    int r = blockIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += in[r * cols + c] * in[r * cols + c];
    __shared__ float red[128];
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float inv = rsqrtf(red[0] + 1e-12f);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[r * cols + c] = in[r * cols + c] * inv;
}

int main() {
    const int rows = 4096, cols = 512;
    const size_t count = (size_t)rows * cols;
    float* host = nullptr;
    CUDA_CHECK(cudaMallocHost(&host, count * sizeof(float)));
    for (size_t i = 0; i < count; ++i) host[i] = std::sin(0.001f * i);

    cudaStream_t worker;
    CUDA_CHECK(cudaStreamCreateWithFlags(&worker, cudaStreamNonBlocking));

    float *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, count * sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(d_in, host, count * sizeof(float), cudaMemcpyHostToDevice, worker));

    normalize_rows<<<rows, 128, 0, worker>>>(d_in, d_out, rows, cols);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> result(count);
    CUDA_CHECK(cudaMemcpy(result.data(), d_out, count * sizeof(float), cudaMemcpyDeviceToHost)); // EXPECT: missing_sync

    double worst = 0.0;
    for (int r = 0; r < rows; ++r) {
        double n2 = 0.0;
        for (int c = 0; c < cols; ++c) n2 += (double)result[r * cols + c] * result[r * cols + c];
        worst = std::fmax(worst, std::fabs(n2 - 1.0));
    }
    printf("max |norm^2 - 1| = %g\n", worst);

    CUDA_CHECK(cudaStreamSynchronize(worker));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(host));
    CUDA_CHECK(cudaStreamDestroy(worker));
    return 0;
}
