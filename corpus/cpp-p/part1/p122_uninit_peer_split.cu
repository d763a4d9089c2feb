// case: a two-GPU split uploads each half of the input to its GPU, but the second upload was pasted with the wrong destination (the output buffer d_out1 instead of d_in1), so the kernel on GPU 1 reads d_in1, which nothing ever wrote.
// expect: uninitialized_device_read=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void square(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

int main() {
    int ndev = 0;
    CHECK(cudaGetDeviceCount(&ndev));
    if (ndev < 2) { printf("needs two GPUs\n"); return 0; }

    const int n = 1 << 24, half = n / 2;
    const size_t half_bytes = half * sizeof(float);
    float *h_in, *h_out;
    CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
    CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_in[i] = (float)(i % 100);

    float *d_in0, *d_out0, *d_in1, *d_out1;
    cudaStream_t s0, s1;
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d_in0, half_bytes));
    CHECK(cudaMalloc(&d_out0, half_bytes));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d_in1, half_bytes));
    CHECK(cudaMalloc(&d_out1, half_bytes));

    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpyAsync(d_in0, h_in, half_bytes, cudaMemcpyHostToDevice, s0));
    square<<<(half + 255) / 256, 256, 0, s0>>>(d_in0, d_out0, half);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_out, d_out0, half_bytes, cudaMemcpyDeviceToHost, s0));

    CHECK(cudaSetDevice(1));
    CHECK(cudaMemcpyAsync(d_out1, h_in + half, half_bytes, cudaMemcpyHostToDevice, s1));
    square<<<(half + 255) / 256, 256, 0, s1>>>(d_in1, d_out1, half);  // EXPECT: uninitialized_device_read
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_out + half, d_out1, half_bytes, cudaMemcpyDeviceToHost, s1));

    CHECK(cudaStreamSynchronize(s0));
    CHECK(cudaStreamSynchronize(s1));
    printf("out[3] = %f out[half + 3] = %f\n", h_out[3], h_out[half + 3]);

    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(d_in0));
    CHECK(cudaFree(d_out0));
    CHECK(cudaStreamDestroy(s0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaFree(d_in1));
    CHECK(cudaFree(d_out1));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    return 0;
}
