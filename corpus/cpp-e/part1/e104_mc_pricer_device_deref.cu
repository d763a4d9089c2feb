// case: A Monte Carlo option pricer (C style, goto cleanup) synchronizes correctly but then sanity-checks the first payoff by indexing the cudaMalloc'd d_payoff array on the host.
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cmath>

#define CHECK(x) do { err = (x); if (err != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(err)); goto cleanup; } } while (0)

#define N_PATHS (1 << 20)
#define N_STEPS 252

__global__ void simulate_paths(float* payoff, int n_paths, int n_steps, float s0, float k,
                               float r, float sigma, float t, unsigned seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_paths) return;
    float dt = t / n_steps, s = s0;
    unsigned st = seed ^ (i * 2654435761u);
    for (int j = 0; j < n_steps; ++j) {
        st = st * 1664525u + 1013904223u;
        float u1 = (st >> 8) * (1.0f / 16777216.0f) + 1e-7f;
        st = st * 1664525u + 1013904223u;
        float u2 = (st >> 8) * (1.0f / 16777216.0f);
        float z = sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
        s *= expf((r - 0.5f * sigma * sigma) * dt + sigma * sqrtf(dt) * z);
    }
    payoff[i] = fmaxf(s - k, 0.f) * expf(-r * t);
}

__global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ float sh[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sh[threadIdx.x] = i < n ? in[i] : 0.f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

int main(void)
{
    cudaError_t err = cudaSuccess;
    float* d_payoff = NULL;
    float* d_partial = NULL;
    float h_partial[N_PATHS / 256];
    const int blocks = N_PATHS / 256;
    double sum = 0.0;

    CHECK(cudaMalloc((void**)&d_payoff, N_PATHS * sizeof(float)));
    CHECK(cudaMalloc((void**)&d_partial, blocks * sizeof(float)));

    simulate_paths<<<blocks, 256>>>(d_payoff, N_PATHS, N_STEPS, 100.f, 105.f, 0.03f, 0.2f, 1.0f, 1234u);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    /* "quick sanity check" of the first path's discounted payoff */
    if (d_payoff[0] < 0.f || isnan(d_payoff[0])) { // EXPECT: host_deref_device_ptr
        fprintf(stderr, "negative payoff: kernel broken\n");
        goto cleanup;
    }

    block_sum<<<blocks, 256>>>(d_payoff, d_partial, N_PATHS);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_partial, d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) sum += h_partial[b];
    printf("call price ~ %.4f\n", sum / N_PATHS);

cleanup:
    cudaFree(d_partial);
    cudaFree(d_payoff);
    return err == cudaSuccess ? 0 : 1;
}
