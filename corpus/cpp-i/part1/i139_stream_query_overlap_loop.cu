// case: a host thread overlaps CPU-side preprocessing of the next batch with the GPU by polling cudaStreamQuery until the stream reports completion, and only then reads the pinned results
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void log1p_kernel(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = log1pf(fabsf(in[i]));
}

static void preprocess(std::vector<float>& next, int round) {
    for (size_t i = 0; i < next.size(); i += 64) next[i] = std::cos(0.001f * i + round);
}

int main() {
    const int n = 1 << 23;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    float *h_in, *h_out, *d_in, *d_out;
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; ++i) h_in[i] = std::sin(0.0001f * i);

    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s));
    log1p_kernel<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s));

    std::vector<float> next(n);
    int rounds = 0;
    cudaError_t st;
    while ((st = cudaStreamQuery(s)) == cudaErrorNotReady) {
        preprocess(next, rounds++);
    }
    CUDA_CHECK(st);

    double acc = 0.0;
    for (int i = 0; i < n; i += 1024) acc += h_out[i];
    printf("sampled mean %.5f after %d overlap rounds\n", acc / (n / 1024), rounds);

    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
