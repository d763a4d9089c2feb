// case: A buffer class returns the status of each of its CUDA calls to the caller, checks its own launch with cudaGetLastError, and discards cudaFree's status in its destructor with static_cast<void>.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t e = (call);                                                \
        if (e != cudaSuccess) {                                                \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));         \
            std::abort();                                                      \
        }                                                                      \
    } while (0)

__global__ void clamp_kernel(float* v, int n, float lo, float hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] < lo ? lo : (v[i] > hi ? hi : v[i]);
}

class GpuSignal {
public:
    explicit GpuSignal(int n) : n_(n) {}
    ~GpuSignal() {
        // nothing useful to do with a failure while unwinding
        static_cast<void>(cudaFree(data_));
    }
    GpuSignal(const GpuSignal&) = delete;
    GpuSignal& operator=(const GpuSignal&) = delete;

    cudaError_t allocate() { return cudaMalloc(&data_, n_ * sizeof(float)); }
    cudaError_t load(const std::vector<float>& h) {
        return cudaMemcpy(data_, h.data(), n_ * sizeof(float), cudaMemcpyHostToDevice);
    }
    cudaError_t clamp(float lo, float hi) {
        clamp_kernel<<<(n_ + 255) / 256, 256>>>(data_, n_, lo, hi);
        return cudaGetLastError();
    }
    cudaError_t store(std::vector<float>& h) const {
        return cudaMemcpy(h.data(), data_, n_ * sizeof(float), cudaMemcpyDeviceToHost);
    }

private:
    float* data_ = nullptr;
    int n_;
};

int main() {
    const int n = 1 << 20;
    std::vector<float> samples(n);
    for (int i = 0; i < n; ++i) samples[i] = float(i % 2000) / 1000.0f - 1.0f;

    GpuSignal sig(n);
    CUDA_CHECK(sig.allocate());
    CUDA_CHECK(sig.load(samples));
    CUDA_CHECK(sig.clamp(-0.5f, 0.5f));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(sig.store(samples));

    int clipped = 0;
    for (float s : samples)
        if (s == 0.5f || s == -0.5f) ++clipped;
    printf("%d samples at the rails\n", clipped);
    return 0;
}
