// case: a large array is processed in chunks spread over four streams (copy in, kernel, copy out per chunk); the host synchronizes every stream before reading the pinned output, which is correct
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define GPU_CHECK(ans) gpuAssert((ans), __FILE__, __LINE__)
inline void gpuAssert(cudaError_t code, const char* file, int line) {
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        exit(code);
    }
}

__global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int nStreams = 4;
    const int n = 1 << 24;
    const int chunk = n / nStreams;
    const size_t chunkBytes = chunk * sizeof(float);

    float *h_x, *h_y;
    GPU_CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
    GPU_CHECK(cudaMallocHost(&h_y, n * sizeof(float)));
    for (int i = 0; i < n; ++i) { h_x[i] = 1.0f; h_y[i] = 2.0f; }

    float *d_x, *d_y;
    GPU_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    GPU_CHECK(cudaMalloc(&d_y, n * sizeof(float)));

    std::vector<cudaStream_t> streams(nStreams);
    for (auto& s : streams) GPU_CHECK(cudaStreamCreate(&s));

    for (int k = 0; k < nStreams; ++k) {
        const int off = k * chunk;
        GPU_CHECK(cudaMemcpyAsync(d_x + off, h_x + off, chunkBytes, cudaMemcpyHostToDevice, streams[k]));
        GPU_CHECK(cudaMemcpyAsync(d_y + off, h_y + off, chunkBytes, cudaMemcpyHostToDevice, streams[k]));
        saxpy<<<(chunk + 255) / 256, 256, 0, streams[k]>>>(3.0f, d_x + off, d_y + off, chunk);
        GPU_CHECK(cudaMemcpyAsync(h_y + off, d_y + off, chunkBytes, cudaMemcpyDeviceToHost, streams[k]));
    }

    for (auto& s : streams) GPU_CHECK(cudaStreamSynchronize(s));

    double maxErr = 0.0;
    for (int i = 0; i < n; ++i) {
        double e = h_y[i] - 5.0;
        if (e < 0) e = -e;
        if (e > maxErr) maxErr = e;
    }
    printf("max error: %g\n", maxErr);

    for (auto& s : streams) GPU_CHECK(cudaStreamDestroy(s));
    GPU_CHECK(cudaFree(d_y));
    GPU_CHECK(cudaFree(d_x));
    GPU_CHECK(cudaFreeHost(h_y));
    GPU_CHECK(cudaFreeHost(h_x));
    return 0;
}
