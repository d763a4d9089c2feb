// case: a helper allocates from the device pool on an allocation stream, computes on a work stream, and frees the input with cudaFreeAsync on the allocation stream only after that stream waits on an event recorded after the kernel; the result is read after a stream synchronize: correct.
// expect: none
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

struct Streams {
    cudaStream_t alloc;
    cudaStream_t work;
};

static void run_normalize(const Streams& st, const float* h_in, float* h_out, int n) {
    const size_t bytes = (size_t)n * sizeof(float);
    cudaEvent_t ready, consumed;
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming));

    float *d_in, *d_out;
    CHECK(cudaMallocAsync(&d_in, bytes, st.alloc));
    CHECK(cudaMallocAsync(&d_out, bytes, st.alloc));
    CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, st.alloc));
    CHECK(cudaEventRecord(ready, st.alloc));

    CHECK(cudaStreamWaitEvent(st.work, ready, 0));
    normalize<<<(n + 255) / 256, 256, 0, st.work>>>(d_in, d_out, 1.0f / 250.0f, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, st.work));
    CHECK(cudaEventRecord(consumed, st.work));

    // the frees are ordered after everything on the work stream
    CHECK(cudaStreamWaitEvent(st.alloc, consumed, 0));
    CHECK(cudaFreeAsync(d_in, st.alloc));
    CHECK(cudaFreeAsync(d_out, st.alloc));

    CHECK(cudaStreamSynchronize(st.work));
    CHECK(cudaEventDestroy(ready));
    CHECK(cudaEventDestroy(consumed));
}

int main() {
    const int n = 1 << 21;
    CHECK(cudaSetDevice(0));
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    uint64_t threshold = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));

    Streams st;
    CHECK(cudaStreamCreateWithFlags(&st.alloc, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&st.work, cudaStreamNonBlocking));

    float *h_in, *h_out;
    CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
    CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_in[i] = (float)(i % 251);

    run_normalize(st, h_in, h_out, n);
    printf("out[250] = %f\n", h_out[250]);

    CHECK(cudaStreamSynchronize(st.alloc));
    CHECK(cudaStreamDestroy(st.alloc));
    CHECK(cudaStreamDestroy(st.work));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    return 0;
}
