// case: Monte Carlo option pricer in C style prints the first price by dereferencing the cudaMalloc'd result array on the host (after synchronizing, which does not help) before copying it back properly.
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <stdio.h>
#include <stdlib.h>

#define N_OPTIONS 4096
#define N_PATHS   8192
#define CHECK(call) if ((call) != cudaSuccess) { fprintf(stderr, "cuda error line %d\n", __LINE__); goto cleanup; }

typedef struct { float spot, strike, rate, vol, expiry; } Option;

__global__ void price_kernel(const Option* opts, float* prices, unsigned long long seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N_OPTIONS) return;
    curandState st;
    curand_init(seed, i, 0, &st);
    Option o = opts[i];
    float drift = (o.rate - 0.5f * o.vol * o.vol) * o.expiry;
    float diff = o.vol * sqrtf(o.expiry);
    float sum = 0.f;
    for (int p = 0; p < N_PATHS; ++p) {
        float st_t = o.spot * expf(drift + diff * curand_normal(&st));
        sum += fmaxf(st_t - o.strike, 0.f);
    }
    prices[i] = expf(-o.rate * o.expiry) * sum / N_PATHS;
}

int main(void)
{
    Option* h_opts = NULL;
    float* h_prices = NULL;
    Option* d_opts = NULL;
    float* d_prices = NULL;
    int rc = 1, i;

    h_opts = (Option*)malloc(N_OPTIONS * sizeof(Option));
    h_prices = (float*)malloc(N_OPTIONS * sizeof(float));
    if (!h_opts || !h_prices) goto cleanup;
    for (i = 0; i < N_OPTIONS; ++i) {
        h_opts[i].spot = 100.f; h_opts[i].strike = 80.f + 0.01f * i;
        h_opts[i].rate = 0.03f; h_opts[i].vol = 0.2f; h_opts[i].expiry = 1.0f;
    }

    CHECK(cudaMalloc((void**)&d_opts, N_OPTIONS * sizeof(Option)));
    CHECK(cudaMalloc((void**)&d_prices, N_OPTIONS * sizeof(float)));
    CHECK(cudaMemcpy(d_opts, h_opts, N_OPTIONS * sizeof(Option), cudaMemcpyHostToDevice));

    price_kernel<<<(N_OPTIONS + 127) / 128, 128>>>(d_opts, d_prices, 1234ULL);
    CHECK(cudaDeviceSynchronize());

    printf("first price (quick look): %f\n", d_prices[0]);

    CHECK(cudaMemcpy(h_prices, d_prices, N_OPTIONS * sizeof(float), cudaMemcpyDeviceToHost));
    {
        double total = 0.0;
        for (i = 0; i < N_OPTIONS; ++i) total += h_prices[i];
        printf("book value: %f\n", total);
    }
    rc = 0;

cleanup:
    if (d_prices) cudaFree(d_prices);
    if (d_opts) cudaFree(d_opts);
    free(h_prices);
    free(h_opts);
    return rc;
}
