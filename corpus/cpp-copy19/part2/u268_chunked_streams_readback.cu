// case: a chunked two-stream pipeline where each chunk is uploaded, scaled by a kernel and copied back into pinned memory on its own stream; both streams are synchronized before the host reads and the buffers are freed.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

#define TOTAL (1 << 24)
#define CHUNKS 8
#define CHUNK (TOTAL / CHUNKS)
#define NSTREAMS 2

__global__ void scale_offset(const float* in, float* out, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i] + b;
}

int main()
{
    float *h_in, *h_out, *d_in, *d_out;
    CUDA_CHECK(cudaMallocHost(&h_in, TOTAL * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out, TOTAL * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_in, TOTAL * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, TOTAL * sizeof(float)));
    for (int i = 0; i < TOTAL; ++i) h_in[i] = float(i % 1024);

    cudaStream_t streams[NSTREAMS];
    for (int s = 0; s < NSTREAMS; ++s) CUDA_CHECK(cudaStreamCreate(&streams[s]));

    for (int c = 0; c < CHUNKS; ++c) {
        cudaStream_t st = streams[c % NSTREAMS];
        size_t off = size_t(c) * CHUNK;
        CUDA_CHECK(cudaMemcpyAsync(d_in + off, h_in + off, CHUNK * sizeof(float), cudaMemcpyHostToDevice, st));
        scale_offset<<<CHUNK / 256, 256, 0, st>>>(d_in + off, d_out + off, 2.0f, 1.0f, CHUNK);
        CUDA_CHECK(cudaMemcpyAsync(h_out + off, d_out + off, CHUNK * sizeof(float), cudaMemcpyDeviceToHost, st));
    }
    CUDA_CHECK(cudaDeviceSynchronize());

    std::printf("h_out[12345] = %f (expected %f)\n", h_out[12345], 2.0f * (12345 % 1024) + 1.0f);

    for (int s = 0; s < NSTREAMS; ++s) CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    return 0;
}
