// case: a chunked pipeline enqueues upload, kernel and download per chunk on round-robin streams and accumulates each chunk's first result inside the enqueue loop, before any stream is synchronized
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(e) do { cudaError_t r_ = (e); if (r_ != cudaSuccess) { \
    fprintf(stderr, "%s at line %d\n", cudaGetErrorString(r_), __LINE__); exit(1); } } while (0)

__global__ void square(const double* in, double* out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

int main() {
    const size_t total = 1u << 24;
    const size_t chunk = 1u << 20;
    const int nstreams = 4;
    const size_t nchunks = total / chunk;

    double *h_in, *h_out, *d_in, *d_out;
    CUDA_CHECK(cudaMallocHost(&h_in, total * sizeof(double)));
    CUDA_CHECK(cudaMallocHost(&h_out, total * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&d_in, total * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&d_out, total * sizeof(double)));
    for (size_t i = 0; i < total; ++i) h_in[i] = (double)(i % 1000) * 1e-3;

    std::vector<cudaStream_t> streams(nstreams);
    for (auto& s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    double head_sum = 0.0;
    for (size_t c = 0; c < nchunks; ++c) {
        cudaStream_t s = streams[c % nstreams];
        size_t off = c * chunk;
        CUDA_CHECK(cudaMemcpyAsync(d_in + off, h_in + off, chunk * sizeof(double),
                                   cudaMemcpyHostToDevice, s));
        square<<<(unsigned)((chunk + 255) / 256), 256, 0, s>>>(d_in + off, d_out + off, chunk);
        CUDA_CHECK(cudaMemcpyAsync(h_out + off, d_out + off, chunk * sizeof(double),
                                   cudaMemcpyDeviceToHost, s));
        head_sum += h_out[off]; // EXPECT: missing_sync
    }

    for (auto s : streams) CUDA_CHECK(cudaStreamSynchronize(s));

    double sum = 0.0;
    for (size_t i = 0; i < total; ++i) sum += h_out[i];
    printf("sum %.4f head %.4f\n", sum, head_sum);

    for (auto s : streams) CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    return 0;
}
