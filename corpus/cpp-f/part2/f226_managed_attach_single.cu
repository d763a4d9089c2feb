// case: A Monte-Carlo option pricer attaches its managed path-statistics buffer to the pricing stream with cudaStreamAttachMemAsync(cudaMemAttachSingle) and allocates its host-side config with cudaMemAttachHost, so host writes to both while the RNG kernel runs on a different stream are legal even without concurrent managed access.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

#define MC_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "mc: %s -> %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

struct PricingConfig {
    float spot, strike, rate, vol, maturity;
    int steps;
};

__global__ void fill_normals(float* z, size_t n, unsigned long long seed) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = seed ^ (i * 0x9E3779B97F4A7C15ull);
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33;
    float u1 = ((x & 0xffffff) + 1) / 16777217.f, u2 = ((x >> 24) & 0xffffff) / 16777216.f;
    z[i] = sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
}

__global__ void price_paths(const float* __restrict__ z, int paths, PricingConfig cfg, double* stats) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= paths) return;
    float dt = cfg.maturity / cfg.steps, s = cfg.spot;
    for (int k = 0; k < cfg.steps; ++k)
        s *= expf((cfg.rate - 0.5f * cfg.vol * cfg.vol) * dt + cfg.vol * sqrtf(dt) * z[size_t(p) * cfg.steps + k]);
    double payoff = fmax(double(s - cfg.strike), 0.0);
    atomicAdd(&stats[0], payoff);
    atomicAdd(&stats[1], payoff * payoff);
}

int main() {
    const int paths = 1 << 18, steps = 64;
    const size_t n = size_t(paths) * steps;
    cudaStream_t rng_stream, price_stream;
    MC_CHECK(cudaStreamCreateWithFlags(&rng_stream, cudaStreamNonBlocking));
    MC_CHECK(cudaStreamCreateWithFlags(&price_stream, cudaStreamNonBlocking));

    float* d_z;
    MC_CHECK(cudaMalloc(&d_z, n * sizeof(float)));
    double* stats;
    PricingConfig* cfg;
    MC_CHECK(cudaMallocManaged(&stats, 2 * sizeof(double)));
    MC_CHECK(cudaMallocManaged(&cfg, sizeof(PricingConfig), cudaMemAttachHost));
    MC_CHECK(cudaStreamAttachMemAsync(price_stream, stats, 0, cudaMemAttachSingle));
    MC_CHECK(cudaStreamSynchronize(price_stream));   // the attachment takes effect here

    fill_normals<<<unsigned((n + 255) / 256), 256, 0, rng_stream>>>(d_z, n, 0xC0FFEEull);

    // Overlapped with the RNG kernel: neither buffer is visible to rng_stream's work.
    stats[0] = 0.0;
    stats[1] = 0.0;
    cfg->spot = 100.f; cfg->strike = 105.f; cfg->rate = 0.03f; cfg->vol = 0.2f; cfg->maturity = 1.f;
    cfg->steps = steps;

    cudaEvent_t normals_ready;
    MC_CHECK(cudaEventCreateWithFlags(&normals_ready, cudaEventDisableTiming));
    MC_CHECK(cudaEventRecord(normals_ready, rng_stream));
    MC_CHECK(cudaStreamWaitEvent(price_stream, normals_ready, 0));
    price_paths<<<(paths + 255) / 256, 256, 0, price_stream>>>(d_z, paths, *cfg, stats);
    MC_CHECK(cudaStreamSynchronize(price_stream));

    double mean = stats[0] / paths, var = stats[1] / paths - mean * mean;
    double price = std::exp(-cfg->rate * cfg->maturity) * mean;
    printf("call price %.4f +- %.4f\n", price, 1.96 * std::sqrt(var / paths));

    MC_CHECK(cudaStreamSynchronize(rng_stream));
    cudaEventDestroy(normals_ready);
    cudaFree(stats);
    cudaFree(cfg);
    cudaFree(d_z);
    cudaStreamDestroy(rng_stream);
    cudaStreamDestroy(price_stream);
    return 0;
}
