// case: a 1D convolution whose taps are uploaded to a __constant__ symbol while the launched kernel takes them from the cudaMalloc'd d_taps, which nothing ever writes.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t rc = call; if (rc != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(rc)); exit(1); } } while (0)

#define SIGNAL_LEN (1 << 18)
#define TAPS 31
#define HALF (TAPS / 2)

__constant__ float c_taps[TAPS];

__global__ void conv1d_const(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int k = 0; k < TAPS; ++k) {
        int j = i + k - HALF;
        if (j >= 0 && j < n) acc += c_taps[k] * x[j];
    }
    y[i] = acc;
}

__global__ void conv1d_global(const float* x, const float* taps, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int k = 0; k < TAPS; ++k) {
        int j = i + k - HALF;
        if (j >= 0 && j < n) acc += taps[k] * x[j];
    }
    y[i] = acc;
}

int main()
{
    std::vector<float> signal(SIGNAL_LEN), filtered(SIGNAL_LEN);
    float taps[TAPS];
    for (int i = 0; i < SIGNAL_LEN; ++i) signal[i] = (i % 64 < 32) ? 1.f : -1.f;
    for (int k = 0; k < TAPS; ++k) taps[k] = 1.f / TAPS;

    float *d_x, *d_y, *d_taps;
    CUDA_CHECK(cudaMalloc(&d_x, SIGNAL_LEN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, SIGNAL_LEN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_taps, TAPS * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_x, signal.data(), SIGNAL_LEN * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(c_taps, taps, sizeof(taps)));

    const int block = 256;
    conv1d_global<<<(SIGNAL_LEN + block - 1) / block, block>>>(d_x, d_taps, d_y, SIGNAL_LEN); // EXPECT: uninitialized_device_read
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(filtered.data(), d_y, SIGNAL_LEN * sizeof(float), cudaMemcpyDeviceToHost));

    printf("y[100] = %f\n", filtered[100]);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_taps));
    return 0;
}
