// case: a softmax pipeline reads its result back with cudaMemcpyAsync(d_out, h_out, ..., cudaMemcpyDeviceToHost): destination and source are swapped, so the call names the device buffer as the host destination (and the host then prints a stale pinned buffer).
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void softmax_rows(const float* in, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* x = in + (size_t)r * cols;
    float m = x[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += __expf(x[c] - m);
    for (int c = 0; c < cols; ++c) out[(size_t)r * cols + c] = __expf(x[c] - m) / s;
}

int main() {
    const int rows = 4096, cols = 1000;
    const size_t bytes = (size_t)rows * cols * sizeof(float);
    float *h_in, *h_out, *d_in, *d_out;
    CHECK(cudaMallocHost(&h_in, bytes));
    CHECK(cudaMallocHost(&h_out, bytes));
    for (size_t i = 0; i < (size_t)rows * cols; ++i) { h_in[i] = (float)(i % 13) * 0.1f; h_out[i] = 0.0f; }
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s));
    softmax_rows<<<(rows + 127) / 128, 128, 0, s>>>(d_in, d_out, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(d_out, h_out, bytes, cudaMemcpyDeviceToHost, s));  // EXPECT: memcpy_kind_mismatch
    CHECK(cudaStreamSynchronize(s));
    printf("row 0 prob 0: %f\n", h_out[0]);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    return 0;
}
