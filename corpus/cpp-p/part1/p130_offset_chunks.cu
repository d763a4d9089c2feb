// case: chunked, overlapped H2D / kernel / D2H over four non-blocking streams at offsets into one pinned host buffer and one device buffer; the host waits on every stream in a loop before it reads any of the results: correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void gelu_inplace(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = v[i];
        v[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    }
}

int main() {
    const int n = 48 * 1000 * 1000;
    const int kStreams = 4;
    const int chunk = (n + kStreams - 1) / kStreams;
    float *h, *d;
    CHECK(cudaMallocHost(&h, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&d, (size_t)n * sizeof(float)));
    for (int i = 0; i < n; ++i) h[i] = (float)(i % 200 - 100) / 50.0f;

    cudaStream_t streams[kStreams];
    for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamCreateWithFlags(&streams[k], cudaStreamNonBlocking));

    for (int k = 0; k < kStreams; ++k) {
        int off = k * chunk;
        int len = std::min(chunk, n - off);
        if (len <= 0) break;
        CHECK(cudaMemcpyAsync(d + off, h + off, (size_t)len * sizeof(float), cudaMemcpyHostToDevice, streams[k]));
        gelu_inplace<<<(len + 255) / 256, 256, 0, streams[k]>>>(d + off, len);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h + off, d + off, (size_t)len * sizeof(float), cudaMemcpyDeviceToHost, streams[k]));
    }
    for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamSynchronize(streams[k]));

    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += h[i];
    printf("sum %f\n", sum);

    for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamDestroy(streams[k]));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
