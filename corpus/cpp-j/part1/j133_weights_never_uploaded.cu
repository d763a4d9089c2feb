// case: a 1-D convolution layer allocates its filter weights on the device and uploads only the input signal; the kernel reads the weights that nothing ever wrote, and main returns without freeing the output buffer
// expect: uninitialized_device_read=1, device_memory_leak=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t st = (x); if (st != cudaSuccess) { \
    fprintf(stderr, "%s at %d\n", cudaGetErrorString(st), __LINE__); return EXIT_FAILURE; } } while (0)

constexpr int kTaps = 63;

__global__ void conv1d(const float* signal, const float* taps, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int k = 0; k < kTaps; ++k) {
        int j = i + k - kTaps / 2;
        if (j >= 0 && j < n) acc += signal[j] * taps[k];
    }
    out[i] = acc;
}

int main() {
    const int n = 1 << 20;
    std::vector<float> signal(n), taps(kTaps), out(n);
    for (int i = 0; i < n; ++i) signal[i] = (i / 64) % 2 ? 1.f : -1.f;
    for (int k = 0; k < kTaps; ++k) taps[k] = 1.f / kTaps;

    float *d_signal, *d_taps, *d_out;
    CHECK_CUDA(cudaMalloc(&d_signal, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_taps, kTaps * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_signal, signal.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    conv1d<<<(n + 255) / 256, 256>>>(d_signal, d_taps, d_out, n); // EXPECT: uninitialized_device_read
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

    printf("out[100]=%f out[n/2]=%f\n", out[100], out[n / 2]);
    CHECK_CUDA(cudaFree(d_taps));
    CHECK_CUDA(cudaFree(d_signal));
    return 0; // EXPECT: device_memory_leak
}
