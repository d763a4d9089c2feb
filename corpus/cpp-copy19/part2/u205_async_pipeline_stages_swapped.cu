// case: a stream-ordered two-stage pipeline whose stages were launched in the wrong order: the gradient stage reads the cudaMallocAsync scratch before the smoothing stage writes it, and the smoothing output is then freed unread.
// expect: uninitialized_device_read=1, unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define CK(call) do { cudaError_t s = (call); if (s != cudaSuccess) { \
    std::fprintf(stderr, "cuda: %s (%s:%d)\n", cudaGetErrorString(s), __FILE__, __LINE__); std::exit(2); } } while (0)

constexpr int kN = 1 << 20;
constexpr int kBlock = 256;

__global__ void smooth3(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = in[max(i - 1, 0)];
    float r = in[min(i + 1, n - 1)];
    out[i] = 0.25f * l + 0.5f * in[i] + 0.25f * r;
}

__global__ void gradient(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = (i + 1 < n) ? in[i + 1] - in[i] : 0.0f;
}

int main()
{
    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float* h_signal;
    float* h_grad;
    CK(cudaMallocHost(&h_signal, kN * sizeof(float)));
    CK(cudaMallocHost(&h_grad, kN * sizeof(float)));
    for (int i = 0; i < kN; ++i) h_signal[i] = (i % 100) * 0.01f;

    float *d_signal, *d_smoothed, *d_grad;
    CK(cudaMallocAsync(&d_signal, kN * sizeof(float), stream));
    CK(cudaMallocAsync(&d_smoothed, kN * sizeof(float), stream));
    CK(cudaMallocAsync(&d_grad, kN * sizeof(float), stream));

    CK(cudaMemcpyAsync(d_signal, h_signal, kN * sizeof(float), cudaMemcpyHostToDevice, stream));

    const int grid = (kN + kBlock - 1) / kBlock;
    gradient<<<grid, kBlock, 0, stream>>>(d_smoothed, d_grad, kN); // EXPECT: uninitialized_device_read
    smooth3<<<grid, kBlock, 0, stream>>>(d_signal, d_smoothed, kN);

    CK(cudaMemcpyAsync(h_grad, d_grad, kN * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CK(cudaFreeAsync(d_signal, stream));
    CK(cudaFreeAsync(d_smoothed, stream)); // EXPECT: unread_kernel_output
    CK(cudaFreeAsync(d_grad, stream));
    CK(cudaStreamSynchronize(stream));

    float maxg = 0.0f;
    for (int i = 0; i < kN; ++i) maxg = fmaxf(maxg, fabsf(h_grad[i]));
    std::printf("max |grad| = %f\n", maxg);

    CK(cudaFreeHost(h_signal));
    CK(cudaFreeHost(h_grad));
    CK(cudaStreamDestroy(stream));
    return 0;
}
