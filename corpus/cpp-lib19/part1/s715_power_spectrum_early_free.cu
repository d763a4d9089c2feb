// Power spectrum of a 2-D field (e.g. one slice of a turbulence snapshot): one R2C transform
// on the analysis stream, then |F|^2 binned by radial wavenumber. The real-space field is
// large, so it is released as soon as the forward transform has been queued.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>
#include <cufft.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUFFT_CHECK(call)                                                         \
    do {                                                                          \
        cufftResult r_ = (call);                                                  \
        if (r_ != CUFFT_SUCCESS) {                                                \
            std::fprintf(stderr, "%s:%d: cuFFT error %d\n", __FILE__, __LINE__,   \
                         static_cast<int>(r_));                                   \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

constexpr int kN = 4096;             // field is kN x kN
constexpr int kHalf = kN / 2 + 1;    // R2C output width
constexpr int kShells = kN / 2;

__global__ void radial_power(const cufftComplex* __restrict__ spec, float* __restrict__ shells) {
    const int kx = blockIdx.x * blockDim.x + threadIdx.x;
    const int ky = blockIdx.y;
    if (kx >= kHalf || ky >= kN) return;
    const int kyw = ky <= kN / 2 ? ky : ky - kN;
    const int shell = static_cast<int>(sqrtf(static_cast<float>(kx * kx + kyw * kyw)) + 0.5f);
    if (shell >= kShells) return;
    const cufftComplex c = spec[static_cast<size_t>(ky) * kHalf + kx];
    const float weight = (kx == 0 || kx == kN / 2) ? 1.0f : 2.0f;  // Hermitian half
    atomicAdd(&shells[shell], weight * (c.x * c.x + c.y * c.y));
}

int main() {
    const size_t field_elems = static_cast<size_t>(kN) * kN;
    const size_t spec_elems = static_cast<size_t>(kN) * kHalf;

    float* h_field = nullptr;  // the snapshot reader fills a page-locked buffer
    CUDA_CHECK(cudaMallocHost(&h_field, field_elems * sizeof(float)));
    for (int y = 0; y < kN; ++y)
        for (int x = 0; x < kN; ++x)
            h_field[static_cast<size_t>(y) * kN + x] = std::sin(0.05f * x) * std::cos(0.03f * y) + 0.1f * std::sin(0.7f * (x + y));

    cudaStream_t analysis;
    CUDA_CHECK(cudaStreamCreate(&analysis));
    cufftHandle plan;
    CUFFT_CHECK(cufftPlan2d(&plan, kN, kN, CUFFT_R2C));
    CUFFT_CHECK(cufftSetStream(plan, analysis));

    float *d_field, *d_shells;
    cufftComplex* d_spec;
    CUDA_CHECK(cudaMalloc(&d_field, field_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_spec, spec_elems * sizeof(cufftComplex)));
    CUDA_CHECK(cudaMalloc(&d_shells, kShells * sizeof(float)));
    float* h_shells = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_shells, kShells * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_field, h_field, field_elems * sizeof(float), cudaMemcpyHostToDevice));
    CUFFT_CHECK(cufftExecR2C(plan, d_field, d_spec));
    CUDA_CHECK(cudaFree(d_field));  // EXPECT: relies_on_implicit_sync

    CUDA_CHECK(cudaMemsetAsync(d_shells, 0, kShells * sizeof(float), analysis));
    const dim3 block(256), grid((kHalf + 255) / 256, kN);
    radial_power<<<grid, block, 0, analysis>>>(d_spec, d_shells);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_shells, d_shells, kShells * sizeof(float), cudaMemcpyDeviceToHost, analysis));
    CUDA_CHECK(cudaStreamSynchronize(analysis));

    for (int k = 1; k < 64; k *= 2) std::printf("E(k=%2d) = %.4e\n", k, h_shells[k]);

    CUFFT_CHECK(cufftDestroy(plan));
    CUDA_CHECK(cudaFreeHost(h_shells));
    CUDA_CHECK(cudaFreeHost(h_field));
    CUDA_CHECK(cudaFree(d_shells));
    CUDA_CHECK(cudaFree(d_spec));
    CUDA_CHECK(cudaStreamDestroy(analysis));
    return 0;
}
