// Monte Carlo price of a European call under Black-Scholes. The normal variates are drawn by
// cuRAND on its own stream; pricing and the block reduction run on the pricing stream.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>
#include <curand.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CURAND_CHECK(call)                                                        \
    do {                                                                          \
        curandStatus_t s_ = (call);                                               \
        if (s_ != CURAND_STATUS_SUCCESS) {                                        \
            std::fprintf(stderr, "%s:%d: cuRAND status %d\n", __FILE__, __LINE__, \
                         static_cast<int>(s_));                                   \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

constexpr int kThreads = 256;

struct OptionParams {
    float spot, strike, rate, vol, maturity;
};

// Each block writes the sum of its discounted payoffs to partial[blockIdx.x].
__global__ void call_payoff_partial_sums(const float* __restrict__ z, size_t paths, OptionParams p,
                                         float* __restrict__ partial) {
    __shared__ float sdata[kThreads];
    const float drift = (p.rate - 0.5f * p.vol * p.vol) * p.maturity;
    const float diffusion = p.vol * sqrtf(p.maturity);
    const float discount = __expf(-p.rate * p.maturity);
    float acc = 0.f;
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < paths;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        const float st = p.spot * __expf(drift + diffusion * z[i]);
        acc += discount * fmaxf(st - p.strike, 0.f);
    }
    sdata[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sdata[0];
}

int main(int argc, char** argv) {
    const size_t paths = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1ull << 24)) & ~size_t(1);
    const int blocks = 1024;
    const OptionParams params{100.0f, 105.0f, 0.03f, 0.25f, 1.0f};

    cudaStream_t rng_stream, price_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&rng_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&price_stream, cudaStreamNonBlocking));

    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 20240611ull));
    CURAND_CHECK(curandSetStream(gen, rng_stream));

    float *d_z, *d_partial, *h_partial;
    CUDA_CHECK(cudaMalloc(&d_z, paths * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_partial, blocks * sizeof(float)));

    CURAND_CHECK(curandGenerateNormal(gen, d_z, paths, 0.0f, 1.0f));
    call_payoff_partial_sums<<<blocks, kThreads, 0, price_stream>>>(d_z, paths, params, d_partial);  // EXPECT: missing_sync
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_partial, d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost, price_stream));
    CUDA_CHECK(cudaStreamSynchronize(price_stream));

    double sum = 0.0;
    for (int b = 0; b < blocks; ++b) sum += h_partial[b];
    std::printf("European call (S=%.0f, K=%.0f): %.4f from %zu paths\n",
                params.spot, params.strike, sum / static_cast<double>(paths), paths);

    CUDA_CHECK(cudaStreamSynchronize(rng_stream));
    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaFreeHost(h_partial));
    CUDA_CHECK(cudaFree(d_partial));
    CUDA_CHECK(cudaFree(d_z));
    CUDA_CHECK(cudaStreamDestroy(price_stream));
    CUDA_CHECK(cudaStreamDestroy(rng_stream));
    return 0;
}
