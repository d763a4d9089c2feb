// case: A sensor-fusion step stages its measurements in a write-combined pinned buffer that the host only writes, and gets its per-sensor flags through mapped (zero-copy) pinned memory allocated without the write-combined flag; the kernel writes the flags through the device alias from cudaHostGetDevicePointer and the host reads them through the host pointer after cudaDeviceSynchronize; correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kSensors = 4096;
constexpr int kSamples = 256;

__global__ void fuse(const float* __restrict__ meas, float* __restrict__ estimate,
                     int* __restrict__ fault_flags, float limit) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= kSensors) return;
    float mean = 0.0f, m2 = 0.0f;
    for (int k = 0; k < kSamples; ++k) {
        float v = meas[s * kSamples + k];
        float d = v - mean;
        mean += d / (k + 1);
        m2 += d * (v - mean);
    }
    estimate[s] = mean;
    fault_flags[s] = (m2 / (kSamples - 1)) > limit ? 1 : 0;
}

int main() {
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));

    float* h_meas = nullptr;  // write-combined: filled by the host, read only by the GPU
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_meas), kSensors * kSamples * sizeof(float),
                             cudaHostAllocWriteCombined));
    int* h_flags = nullptr;   // mapped, cached: written by the GPU, read by the host
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_flags), kSensors * sizeof(int), cudaHostAllocMapped));
    int* d_flags_alias = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_flags_alias), h_flags, 0));

    float *d_meas = nullptr, *d_est = nullptr;
    CUDA_CHECK(cudaMalloc(&d_meas, kSensors * kSamples * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_est, kSensors * sizeof(float)));

    for (int s = 0; s < kSensors; ++s)
        for (int k = 0; k < kSamples; ++k) {
            float noise = (s % 97 == 0 ? 3.0f : 0.1f) * std::sin(12.9898f * (s * kSamples + k));
            h_meas[s * kSamples + k] = 20.0f + 0.01f * s + noise;
        }

    CUDA_CHECK(cudaMemcpy(d_meas, h_meas, kSensors * kSamples * sizeof(float), cudaMemcpyHostToDevice));
    fuse<<<(kSensors + 127) / 128, 128>>>(d_meas, d_est, d_flags_alias, 1.0f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    int faults = 0;
    for (int s = 0; s < kSensors; ++s) faults += h_flags[s];
    float est0 = 0.0f;
    CUDA_CHECK(cudaMemcpy(&est0, d_est, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("%d of %d sensors flagged, sensor 0 estimate %.3f\n", faults, kSensors, est0);

    CUDA_CHECK(cudaFree(d_est));
    CUDA_CHECK(cudaFree(d_meas));
    CUDA_CHECK(cudaFreeHost(h_flags));
    CUDA_CHECK(cudaFreeHost(h_meas));
    return 0;
}
