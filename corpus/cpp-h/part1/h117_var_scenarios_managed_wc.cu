// case: Value-at-risk engine updates the managed shock configuration for the next batch while the current revaluation kernel (which uses only device buffers) is still running, and sorts the P&L vector read back into cudaHostAllocWriteCombined memory on the host.
// expect: managed_concurrent_access=1, write_combined_host_read=1
#include <cuda_runtime.h>
#include <algorithm>
#include <vector>
#include <cstdio>
#include <cmath>

#define CU_TRY(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e_)); std::exit(3); } } while (0)

struct ShockConfig { float rate_bp; float fx_pct; float vol_pct; int horizon_days; };

__global__ void revalue(const float* delta, const float* gamma, const float* shocks, float* pnl, int positions, int scenarios)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= scenarios) return;
    float total = 0.f;
    for (int p = 0; p < positions; ++p) {
        float dx = shocks[(size_t)s * 4 + (p & 3)];
        total += delta[p] * dx + 0.5f * gamma[p] * dx * dx;
    }
    pnl[s] = total;
}

__global__ void make_shocks(const ShockConfig* cfg, float* shocks, int scenarios, unsigned seed)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= scenarios) return;
    unsigned h = (s + 1) * 0x9E3779B1u ^ seed;
    float u = (h & 0xffffff) / 16777216.f - 0.5f;
    float scale = sqrtf((float)cfg->horizon_days);
    shocks[s * 4 + 0] = u * cfg->rate_bp * 1e-4f * scale;
    shocks[s * 4 + 1] = u * cfg->fx_pct * 1e-2f * scale;
    shocks[s * 4 + 2] = u * cfg->vol_pct * 1e-2f * scale;
    shocks[s * 4 + 3] = -u * cfg->fx_pct * 1e-2f * scale;
}

int main()
{
    const int positions = 20000, scenarios = 1 << 17;
    ShockConfig* cfg;
    CU_TRY(cudaMallocManaged(&cfg, sizeof(ShockConfig)));
    *cfg = ShockConfig{25.f, 2.f, 10.f, 1};

    std::vector<float> delta(positions), gamma(positions);
    for (int p = 0; p < positions; ++p) { delta[p] = std::sin(p * 0.1f) * 1e4f; gamma[p] = std::cos(p * 0.3f) * 1e3f; }

    float *d_delta, *d_gamma, *d_shocks, *d_pnl, *h_pnl;
    CU_TRY(cudaMalloc(&d_delta, positions * sizeof(float)));
    CU_TRY(cudaMalloc(&d_gamma, positions * sizeof(float)));
    CU_TRY(cudaMalloc(&d_shocks, (size_t)scenarios * 4 * sizeof(float)));
    CU_TRY(cudaMalloc(&d_pnl, scenarios * sizeof(float)));
    CU_TRY(cudaHostAlloc(&h_pnl, scenarios * sizeof(float), cudaHostAllocWriteCombined));
    CU_TRY(cudaMemcpy(d_delta, delta.data(), positions * sizeof(float), cudaMemcpyHostToDevice));
    CU_TRY(cudaMemcpy(d_gamma, gamma.data(), positions * sizeof(float), cudaMemcpyHostToDevice));

    make_shocks<<<scenarios / 256, 256>>>(cfg, d_shocks, scenarios, 42u);
    CU_TRY(cudaDeviceSynchronize());
    revalue<<<scenarios / 256, 256>>>(d_delta, d_gamma, d_shocks, d_pnl, positions, scenarios);

    // prepare the 10-day batch while revaluation runs
    cfg->horizon_days = 10;

    CU_TRY(cudaMemcpy(h_pnl, d_pnl, scenarios * sizeof(float), cudaMemcpyDeviceToHost));
    std::sort(h_pnl, h_pnl + scenarios);
    std::printf("1-day 99%% VaR: %.0f\n", -h_pnl[scenarios / 100]);

    make_shocks<<<scenarios / 256, 256>>>(cfg, d_shocks, scenarios, 43u);
    CU_TRY(cudaDeviceSynchronize());

    cudaFreeHost(h_pnl);
    cudaFree(d_pnl); cudaFree(d_shocks); cudaFree(d_gamma); cudaFree(d_delta);
    cudaFree(cfg);
    return 0;
}
