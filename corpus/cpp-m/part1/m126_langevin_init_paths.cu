// case: A Langevin dynamics step reads only device buffers that something wrote first: noise filled by cuRAND, forces and the displacement accumulator cleared with cudaMemsetAsync, positions written by an init kernel, a small coefficient table uploaded (under the pageable threshold), and the result read back with a blocking copy after the stream is synchronized; correct.
// expect: none
#include <cuda_runtime.h>
#include <curand.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

#define CURAND_CHECK(x)                                                            \
    do {                                                                           \
        curandStatus_t s_ = (x);                                                   \
        if (s_ != CURAND_STATUS_SUCCESS) {                                         \
            std::fprintf(stderr, "%s:%d curand %d\n", __FILE__, __LINE__, int(s_)); \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kParticles = 1 << 20;
constexpr int kCoeffs = 8;

__global__ void init_positions(float* x, int n, float spacing) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = spacing * (i % 1024);
}

__global__ void harmonic_forces(const float* __restrict__ x, const float* __restrict__ coeffs,
                                float* __restrict__ f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float center = coeffs[i % kCoeffs];
    f[i] += -coeffs[kCoeffs - 1] * (x[i] - center);
}

__global__ void langevin_step(float* x, const float* __restrict__ f, const float* __restrict__ noise,
                              float* msd, int n, float dt, float gamma, float kT) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float dx = f[i] / gamma * dt + sqrtf(2.0f * kT * dt / gamma) * noise[i];
    x[i] += dx;
    msd[i] += dx * dx;
}

int main() {
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x, *d_f, *d_noise, *d_msd, *d_coeffs;
    CUDA_CHECK(cudaMalloc(&d_x, kParticles * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_f, kParticles * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_noise, kParticles * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_msd, kParticles * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_coeffs, kCoeffs * sizeof(float)));

    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ull));
    CURAND_CHECK(curandSetStream(gen, stream));

    // Centers for the first kCoeffs-1 slots, then the spring constant in the last slot.
    std::vector<float> coeffs(kCoeffs);
    for (int c = 0; c < kCoeffs - 1; ++c) coeffs[c] = 0.5f * c;
    coeffs[kCoeffs - 1] = 2.0f;
    CUDA_CHECK(cudaMemcpyAsync(d_coeffs, coeffs.data(), kCoeffs * sizeof(float), cudaMemcpyHostToDevice, stream));

    init_positions<<<kParticles / 256, 256, 0, stream>>>(d_x, kParticles, 0.01f);
    CUDA_CHECK(cudaMemsetAsync(d_msd, 0, kParticles * sizeof(float), stream));

    for (int step = 0; step < 100; ++step) {
        CUDA_CHECK(cudaMemsetAsync(d_f, 0, kParticles * sizeof(float), stream));
        harmonic_forces<<<kParticles / 256, 256, 0, stream>>>(d_x, d_coeffs, d_f, kParticles);
        CURAND_CHECK(curandGenerateNormal(gen, d_noise, kParticles, 0.0f, 1.0f));
        langevin_step<<<kParticles / 256, 256, 0, stream>>>(d_x, d_f, d_noise, d_msd, kParticles, 1e-3f, 1.0f, 0.5f);
    }
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> msd(kParticles);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemcpy(msd.data(), d_msd, kParticles * sizeof(float), cudaMemcpyDeviceToHost));
    double mean = 0.0;
    for (float v : msd) mean += v;
    std::printf("mean squared displacement: %.6f\n", mean / kParticles);

    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaFree(d_coeffs));
    CUDA_CHECK(cudaFree(d_msd));
    CUDA_CHECK(cudaFree(d_noise));
    CUDA_CHECK(cudaFree(d_f));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
