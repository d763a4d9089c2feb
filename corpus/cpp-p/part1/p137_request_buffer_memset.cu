// case: an inference request is uploaded from a pinned buffer, run and read back asynchronously; to prepare for the next request the host clears the pinned input with memset before the stream synchronize, while the upload may still be reading it.
// expect: missing_sync=1
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

#define BATCH 64
#define FEATURES 8192

__global__ void dense_relu(const float* x, const float* w, float* y, int batch, int features) {
    int b = blockIdx.x;
    float acc = 0.0f;
    for (int f = threadIdx.x; f < features; f += blockDim.x) acc += x[b * features + f] * w[f];
    atomicAdd(&y[b], fmaxf(acc, 0.0f));
}

int main() {
    const size_t in_bytes = BATCH * FEATURES * sizeof(float);
    float *h_in, *h_out, *d_in, *d_w, *d_out;
    CHECK(cudaMallocHost(&h_in, in_bytes));
    CHECK(cudaMallocHost(&h_out, BATCH * sizeof(float)));
    CHECK(cudaMalloc(&d_in, in_bytes));
    CHECK(cudaMalloc(&d_w, FEATURES * sizeof(float)));
    CHECK(cudaMalloc(&d_out, BATCH * sizeof(float)));

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < BATCH * FEATURES; ++i) h_in[i] = (float)(i % 5);
    CHECK(cudaMemsetAsync(d_w, 0, FEATURES * sizeof(float), s));
    CHECK(cudaMemsetAsync(d_out, 0, BATCH * sizeof(float), s));

    CHECK(cudaMemcpyAsync(d_in, h_in, in_bytes, cudaMemcpyHostToDevice, s));
    dense_relu<<<BATCH, 256, 0, s>>>(d_in, d_w, d_out, BATCH, FEATURES);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_out, d_out, BATCH * sizeof(float), cudaMemcpyDeviceToHost, s));

    // prepare the request buffer for the next batch
    memset(h_in, 0, in_bytes);  // EXPECT: missing_sync

    CHECK(cudaStreamSynchronize(s));
    printf("y[0] = %f\n", h_out[0]);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_w));
    CHECK(cudaFree(d_in));
    CHECK(cudaFreeHost(h_out));
    CHECK(cudaFreeHost(h_in));
    return 0;
}
