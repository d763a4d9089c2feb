// case: a 1D stencil keeps its copy directions in const cudaMemcpyKind variables and uses kToDevice (instead of kToHost) for the readback into a new[] array.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cuda_runtime.h>

#define RADIUS 3
#define BLOCK 256

__global__ void stencil1d(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < RADIUS || i >= n - RADIUS) return;
    float acc = 0.f;
    for (int k = -RADIUS; k <= RADIUS; ++k) acc += in[i + k];
    out[i] = acc / (2 * RADIUS + 1);
}

static const cudaMemcpyKind kToDevice = cudaMemcpyHostToDevice;
static const cudaMemcpyKind kToHost = cudaMemcpyDeviceToHost;

int main() {
    const int n = 1 << 22;
    const size_t bytes = n * sizeof(float);
    float* in = new float[n];
    float* out = new float[n];
    for (int i = 0; i < n; ++i) in[i] = (float)(i % 17);

    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemset(d_out, 0, bytes);

    cudaMemcpy(d_in, in, bytes, kToDevice);
    stencil1d<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_in, d_out, n);
    cudaDeviceSynchronize();
    cudaMemcpy(out, d_out, bytes, kToDevice); // EXPECT: memcpy_kind_mismatch

    printf("out[100] = %f (kToHost=%d unused)\n", out[100], (int)kToHost);

    cudaFree(d_in);
    cudaFree(d_out);
    delete[] in;
    delete[] out;
    return 0;
}
