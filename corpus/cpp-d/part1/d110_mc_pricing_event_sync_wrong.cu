// case: Monte Carlo option pricer: the payoff kernel runs on s_sim, the copy stream waits on an event recorded after it and copies the payoffs into pinned memory, and the host then waits with cudaEventSynchronize on that same event, which covers the kernel but not the copy, before averaging the payoffs.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)
#define ALLOC_DEVICE(p, n) CUDA_CHECK(cudaMalloc((void**)&(p), (n)))
#define ALLOC_PINNED(p, n) CUDA_CHECK(cudaMallocHost((void**)&(p), (n)))
#define COPY_D2H_ASYNC(dst, src, n, s) CUDA_CHECK(cudaMemcpyAsync((dst), (src), (n), cudaMemcpyDeviceToHost, (s)))

struct OptionSpec { float spot, strike, rate, vol, maturity; };

__device__ inline float uniform01(unsigned long long& state)
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((state >> 40) + 0.5f) * (1.0f / 16777216.0f);
}

__global__ void price_paths(OptionSpec opt, int steps, int paths, float* payoff)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= paths) return;
    unsigned long long st = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)p;
    float dt = opt.maturity / steps;
    float drift = (opt.rate - 0.5f * opt.vol * opt.vol) * dt;
    float diff = opt.vol * sqrtf(dt);
    float s = opt.spot, avg = 0.f;
    for (int t = 0; t < steps; ++t) {
        float u1 = uniform01(st), u2 = uniform01(st);
        float z = sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
        s *= expf(drift + diff * z);
        avg += s;
    }
    avg /= steps;
    payoff[p] = fmaxf(avg - opt.strike, 0.f) * expf(-opt.rate * opt.maturity);
}

int main()
{
    const int paths = 1 << 22, steps = 252;
    const size_t bytes = paths * sizeof(float);
    OptionSpec asian{100.f, 105.f, 0.03f, 0.25f, 1.0f};

    float *d_payoff = nullptr, *h_payoff = nullptr;
    ALLOC_DEVICE(d_payoff, bytes);
    ALLOC_PINNED(h_payoff, bytes);

    cudaStream_t s_sim, s_copy;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_sim, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));
    cudaEvent_t sim_done;
    CUDA_CHECK(cudaEventCreateWithFlags(&sim_done, cudaEventDisableTiming));

    price_paths<<<(paths + 255) / 256, 256, 0, s_sim>>>(asian, steps, paths, d_payoff);
    CUDA_CHECK(cudaEventRecord(sim_done, s_sim));
    CUDA_CHECK(cudaStreamWaitEvent(s_copy, sim_done, 0));
    COPY_D2H_ASYNC(h_payoff, d_payoff, bytes, s_copy);

    CUDA_CHECK(cudaEventSynchronize(sim_done)); // the simulation is done; the copy may not be
    double sum = 0.0, sum_sq = 0.0;
    for (int p = 0; p < paths; ++p) {
        double v = h_payoff[p]; // EXPECT: missing_sync
        sum += v;
        sum_sq += v * v;
    }
    double mean = sum / paths;
    double stderr_ = std::sqrt((sum_sq / paths - mean * mean) / paths);
    printf("asian call: %.4f +/- %.4f\n", mean, 1.96 * stderr_);

    CUDA_CHECK(cudaStreamSynchronize(s_copy));
    CUDA_CHECK(cudaEventDestroy(sim_done));
    CUDA_CHECK(cudaStreamDestroy(s_copy));
    CUDA_CHECK(cudaStreamDestroy(s_sim));
    CUDA_CHECK(cudaFreeHost(h_payoff));
    CUDA_CHECK(cudaFree(d_payoff));
    return 0;
}
