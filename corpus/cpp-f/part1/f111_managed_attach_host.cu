// case: a Monte-Carlo photon tracer keeps host-side progress statistics in managed memory allocated with cudaMemAttachHost and updates them while kernels run, and attaches its work buffer to one stream, reading it only after that stream synchronizes.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <chrono>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("CUDA failure %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Progress {
    long   batches_launched;
    double host_ms;
};

__global__ void trace_photons(float* absorbed, int n_photons, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_photons) return;
    unsigned s = seed ^ (i * 747796405u);
    float w = 1.f, depth = 0.f;
    for (int k = 0; k < 64 && w > 1e-3f; ++k) {
        s = s * 1664525u + 1013904223u;
        depth += (s & 0xffff) / 65536.f;
        w *= 0.9f;
    }
    absorbed[i] = depth * (1.f - w);
}

int main() {
    const int n = 1 << 22;
    const int batches = 8;

    Progress* progress = nullptr;
    CUDA_CHECK(cudaMallocManaged(&progress, sizeof(Progress), cudaMemAttachHost));
    progress->batches_launched = 0;
    progress->host_ms = 0.0;

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float* absorbed = nullptr;
    CUDA_CHECK(cudaMallocManaged(&absorbed, n * sizeof(float)));
    CUDA_CHECK(cudaStreamAttachMemAsync(s, absorbed, 0, cudaMemAttachSingle));
    CUDA_CHECK(cudaStreamSynchronize(s));

    double total = 0.0;
    for (int b = 0; b < batches; ++b) {
        auto t0 = std::chrono::steady_clock::now();
        trace_photons<<<(n + 255) / 256, 256, 0, s>>>(absorbed, n, 1234u + b);
        progress->batches_launched += 1;        // host-attached: not visible to the GPU
        progress->host_ms += std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - t0).count();
        CUDA_CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < n; i += 4096) total += absorbed[i];
    }
    printf("%ld batches, sampled absorption %.3f, launch overhead %.2f ms\n",
           progress->batches_launched, total, progress->host_ms);

    CUDA_CHECK(cudaFree(absorbed));
    CUDA_CHECK(cudaFree(progress));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
