// case: a chunked stream pipeline with pinned host buffers writes the readback of each chunk as cudaMemcpyAsync(h_out, d_buf, .., HostToDevice), naming the cudaMalloc source as the host side.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void square(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}

int main() {
    const int nChunks = 4;
    const int chunk = 1 << 18;
    const size_t chunkBytes = chunk * sizeof(float);

    float *h_in, *h_out, *d_buf;
    CHECK(cudaMallocHost(&h_in, nChunks * chunkBytes));
    CHECK(cudaMallocHost(&h_out, nChunks * chunkBytes));
    CHECK(cudaMalloc(&d_buf, nChunks * chunkBytes));
    for (int i = 0; i < nChunks * chunk; ++i) h_in[i] = 0.5f * i;

    cudaStream_t streams[nChunks];
    for (int s = 0; s < nChunks; ++s) CHECK(cudaStreamCreate(&streams[s]));

    for (int s = 0; s < nChunks; ++s) {
        size_t off = (size_t)s * chunk;
        CHECK(cudaMemcpyAsync(d_buf + off, h_in + off, chunkBytes,
                              cudaMemcpyHostToDevice, streams[s]));
        square<<<chunk / 256, 256, 0, streams[s]>>>(d_buf + off, chunk);
        CHECK(cudaMemcpyAsync(h_out + off, d_buf + off, chunkBytes, // EXPECT: memcpy_kind_mismatch
                              cudaMemcpyHostToDevice, streams[s]));
    }
    for (int s = 0; s < nChunks; ++s) CHECK(cudaStreamSynchronize(streams[s]));

    printf("h_out[10] = %f\n", h_out[10]);

    for (int s = 0; s < nChunks; ++s) cudaStreamDestroy(streams[s]);
    cudaFree(d_buf);
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    return 0;
}
