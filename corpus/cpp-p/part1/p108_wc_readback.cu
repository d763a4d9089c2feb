// case: one write-combined pinned buffer (cudaHostAllocWriteCombined) serves as both the upload source and the readback destination; after the stream synchronize the host sums the readback out of write-combined memory, which the CPU does not cache.
// expect: write_combined_host_read=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void square(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}

int main() {
    const int n = 1 << 24;
    const size_t bytes = n * sizeof(float);
    float* h_io;
    // write-combined: fast for the upload, but also used below for the readback
    CHECK(cudaHostAlloc(&h_io, bytes, cudaHostAllocWriteCombined));
    for (int i = 0; i < n; ++i) h_io[i] = 0.5f;

    float* d_v;
    CHECK(cudaMalloc(&d_v, bytes));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpyAsync(d_v, h_io, bytes, cudaMemcpyHostToDevice, s));
    square<<<(n + 255) / 256, 256, 0, s>>>(d_v, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_io, d_v, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));

    double checksum = 0.0;
    for (int i = 0; i < n; ++i) checksum += h_io[i];  // EXPECT: write_combined_host_read
    printf("checksum %f\n", checksum);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_v));
    CHECK(cudaFreeHost(h_io));
    return 0;
}
