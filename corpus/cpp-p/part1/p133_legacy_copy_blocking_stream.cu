// case: a kernel writes its result on a stream created with cudaStreamCreate (a blocking stream), and the result is fetched with a plain cudaMemcpy on the legacy default stream, which waits for work on blocking streams, so the result is complete when the host reads it: correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void prefix_scale(const int* in, long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (long long)in[i] * (i + 1);
}

int main() {
    const int n = 1 << 22;
    int* h_in;
    CHECK(cudaMallocHost(&h_in, n * sizeof(int)));
    for (int i = 0; i < n; ++i) h_in[i] = i & 0xff;
    std::vector<long long> h_out(n);

    int* d_in;
    long long* d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(long long)));

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));  // blocking stream: synchronizes with the legacy default stream
    CHECK(cudaMemcpyAsync(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice, s));
    prefix_scale<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());

    // legacy default stream: waits for the work on the blocking stream s
    CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(long long), cudaMemcpyDeviceToHost));
    printf("out[255] = %lld\n", h_out[255]);

    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_in));
    CHECK(cudaFreeHost(h_in));
    return 0;
}
