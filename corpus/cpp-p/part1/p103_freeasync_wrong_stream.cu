// case: stream-ordered allocation on an allocation stream, kernel on a work stream after an event; the input is returned to the pool with cudaFreeAsync on the allocation stream, which is not ordered after the kernel still reading it (free on the wrong stream, as cuda-oxide #619).
// expect: missing_sync=1
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void normalize(const float* in, float* out, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * scale;
}

int main() {
    const int n = 1 << 21;
    const size_t bytes = n * sizeof(float);
    CHECK(cudaSetDevice(0));

    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t threshold = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));

    cudaStream_t s_alloc, s_work;
    CHECK(cudaStreamCreateWithFlags(&s_alloc, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s_work, cudaStreamNonBlocking));
    cudaEvent_t ready;
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));

    float *h_in, *h_out;
    CHECK(cudaMallocHost(&h_in, bytes));
    CHECK(cudaMallocHost(&h_out, bytes));
    for (int i = 0; i < n; ++i) h_in[i] = (float)(i % 251);

    float *d_in, *d_out;
    CHECK(cudaMallocAsync(&d_in, bytes, s_alloc));
    CHECK(cudaMallocAsync(&d_out, bytes, s_alloc));
    CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s_alloc));
    CHECK(cudaEventRecord(ready, s_alloc));

    CHECK(cudaStreamWaitEvent(s_work, ready, 0));
    normalize<<<(n + 255) / 256, 256, 0, s_work>>>(d_in, d_out, 1.0f / 250.0f, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s_work));

    // the input is "no longer needed": but s_alloc never waits for the kernel on s_work
    CHECK(cudaFreeAsync(d_in, s_alloc));  // EXPECT: missing_sync

    CHECK(cudaStreamSynchronize(s_work));
    CHECK(cudaFreeAsync(d_out, s_alloc));
    CHECK(cudaStreamSynchronize(s_alloc));
    printf("out[250] = %f\n", h_out[250]);

    CHECK(cudaEventDestroy(ready));
    CHECK(cudaStreamDestroy(s_alloc));
    CHECK(cudaStreamDestroy(s_work));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    return 0;
}
