// case: a denoising benchmark fills a cudaMalloc'd noise buffer with curandGenerateNormal before a read-only kernel adds it to the clean image, and copies the noisy image back.
// expect: none
#include <cuda_runtime.h>
#include <curand.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)
#define CURAND_CHECK(x) do { curandStatus_t s = (x); if (s != CURAND_STATUS_SUCCESS) { \
    std::fprintf(stderr, "cuRAND status %d\n", (int)s); std::exit(1); } } while (0)

constexpr int kW = 1024, kH = 1024;
constexpr size_t kPix = size_t(kW) * kH;

__global__ void add_noise(const float* clean, const float* noise, float* noisy, float sigma, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) noisy[i] = fminf(fmaxf(clean[i] + sigma * noise[i], 0.0f), 1.0f);
}

int main()
{
    std::vector<float> clean(kPix), noisy(kPix);
    for (size_t i = 0; i < kPix; ++i) clean[i] = float((i / kW) % 256) / 255.0f;

    float *d_clean, *d_noise, *d_noisy;
    CUDA_CHECK(cudaMalloc(&d_clean, kPix * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_noise, kPix * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_noisy, kPix * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_clean, clean.data(), kPix * sizeof(float), cudaMemcpyHostToDevice));

    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 42ULL));
    CURAND_CHECK(curandGenerateNormal(gen, d_noise, kPix, 0.0f, 1.0f));

    add_noise<<<(unsigned)((kPix + 255) / 256), 256>>>(d_clean, d_noise, d_noisy, 0.05f, kPix);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(noisy.data(), d_noisy, kPix * sizeof(float), cudaMemcpyDeviceToHost));

    double mse = 0.0;
    for (size_t i = 0; i < kPix; ++i) mse += (noisy[i] - clean[i]) * (noisy[i] - clean[i]);
    std::printf("MSE = %g\n", mse / kPix);

    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaFree(d_clean));
    CUDA_CHECK(cudaFree(d_noise));
    CUDA_CHECK(cudaFree(d_noisy));
    return 0;
}
