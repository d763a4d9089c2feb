// case: Monte Carlo pi estimate where cuRAND generates both coordinate streams into d_x, leaving d_y never written when the hit-count kernel reads it.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <curand.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CALL(x) do { if ((x) != cudaSuccess) { std::printf("CUDA error at %s:%d\n", __FILE__, __LINE__); std::exit(EXIT_FAILURE); } } while (0)
#define CURAND_CALL(x) do { if ((x) != CURAND_STATUS_SUCCESS) { std::printf("cuRAND error at %s:%d\n", __FILE__, __LINE__); std::exit(EXIT_FAILURE); } } while (0)

static const size_t kSamples = 1 << 24;

__global__ void count_hits(const float* xs, const float* ys, unsigned long long* hits, size_t n)
{
    unsigned long long local = 0;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float x = xs[i], y = ys[i];
        local += (x * x + y * y <= 1.0f) ? 1ull : 0ull;
    }
    atomicAdd(hits, local);
}

int main()
{
    float *d_x, *d_y;
    unsigned long long* d_hits;
    CUDA_CALL(cudaMalloc(&d_x, kSamples * sizeof(float)));
    CUDA_CALL(cudaMalloc(&d_y, kSamples * sizeof(float)));
    CUDA_CALL(cudaMalloc(&d_hits, sizeof(unsigned long long)));
    CUDA_CALL(cudaMemset(d_hits, 0, sizeof(unsigned long long)));

    curandGenerator_t gen;
    CURAND_CALL(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CALL(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CURAND_CALL(curandGenerateUniform(gen, d_x, kSamples));
    CURAND_CALL(curandGenerateUniform(gen, d_x, kSamples));

    count_hits<<<1024, 256>>>(d_x, d_y, d_hits, kSamples); // EXPECT: uninitialized_device_read
    CUDA_CALL(cudaGetLastError());

    unsigned long long hits = 0;
    CUDA_CALL(cudaMemcpy(&hits, d_hits, sizeof(hits), cudaMemcpyDeviceToHost));
    std::printf("pi ~= %f\n", 4.0 * (double)hits / (double)kSamples);

    CURAND_CALL(curandDestroyGenerator(gen));
    CUDA_CALL(cudaFree(d_x));
    CUDA_CALL(cudaFree(d_y));
    CUDA_CALL(cudaFree(d_hits));
    return 0;
}
