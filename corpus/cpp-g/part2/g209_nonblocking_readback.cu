// case: a particle histogram is computed by a kernel on a cudaStreamNonBlocking stream owned by an RAII guard, then read back with a plain blocking cudaMemcpy, which runs on the legacy default stream and does not wait for the non-blocking stream's kernel.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <stdexcept>
#include <vector>

#define CUDA_OK(call)                                                             \
    do {                                                                          \
        cudaError_t s_ = (call);                                                  \
        if (s_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(s_));  \
    } while (0)

class ComputeStream {
public:
    ComputeStream() { CUDA_OK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~ComputeStream() { cudaStreamDestroy(s_); }
    ComputeStream(const ComputeStream&) = delete;
    ComputeStream& operator=(const ComputeStream&) = delete;
    operator cudaStream_t() const { return s_; }
    void sync() const { CUDA_OK(cudaStreamSynchronize(s_)); }
private:
    cudaStream_t s_{};
};

__global__ void energy_histogram(const float4* particles, int n, unsigned* bins, int nbins,
                                 float emax) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = particles[i];
    float e = 0.5f * p.w * (p.x * p.x + p.y * p.y + p.z * p.z);
    int b = min(nbins - 1, (int)(e / emax * nbins));
    atomicAdd(&bins[b], 1u);
}

int main() {
    const int n = 1 << 22;
    const int nbins = 4096;
    ComputeStream stream;

    float4* d_particles = nullptr;
    unsigned* d_bins = nullptr;
    CUDA_OK(cudaMalloc(&d_particles, n * sizeof(float4)));
    CUDA_OK(cudaMalloc(&d_bins, nbins * sizeof(unsigned)));
    CUDA_OK(cudaMemsetAsync(d_particles, 0, n * sizeof(float4), stream));
    CUDA_OK(cudaMemsetAsync(d_bins, 0, nbins * sizeof(unsigned), stream));

    energy_histogram<<<(n + 255) / 256, 256, 0, stream>>>(d_particles, n, d_bins, nbins, 10.0f);

    std::vector<unsigned> bins(nbins);
    CUDA_OK(cudaMemcpy(bins.data(), d_bins, nbins * sizeof(unsigned), cudaMemcpyDeviceToHost));

    unsigned long long total = 0;
    for (unsigned c : bins) total += c;
    std::printf("histogram holds %llu of %d particles\n", total, n);

    stream.sync();
    CUDA_OK(cudaFree(d_particles));
    CUDA_OK(cudaFree(d_bins));
    return 0;
}
