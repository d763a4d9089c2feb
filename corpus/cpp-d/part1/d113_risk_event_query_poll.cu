// case: value-at-risk aggregator with one stream, event and pinned P&L buffer per trading desk; the host overlaps CPU work with a cudaEventQuery polling loop per desk and reads each desk's P&L only once its event (recorded after the copy) has completed: correct.
// expect: none
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

constexpr int kScenarios = 1 << 18;
constexpr int kPositions = 64;

struct Desk {
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;
    float* d_pnl = nullptr;
    float* h_pnl = nullptr; // cudaMallocHost
    float exposure = 0.f;
};

__global__ void scenario_pnl(float exposure, int positions, int scenarios, float* pnl)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= scenarios) return;
    unsigned int h = (unsigned int)s * 2654435761u;
    float total = 0.f;
    for (int p = 0; p < positions; ++p) {
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
        float shock = ((h & 0xffff) / 65535.f - 0.5f) * 0.08f;
        total += exposure * shock / positions;
    }
    pnl[s] = total;
}

int main()
{
    std::vector<Desk> desks(4);
    for (size_t i = 0; i < desks.size(); ++i) {
        auto& d = desks[i];
        d.exposure = 1.0e6f * (i + 1);
        CUDA_CHECK(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&d.done, cudaEventDisableTiming));
        CUDA_CHECK(cudaMalloc(&d.d_pnl, kScenarios * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&d.h_pnl, kScenarios * sizeof(float)));
    }

    for (auto& d : desks) {
        scenario_pnl<<<kScenarios / 256, 256, 0, d.stream>>>(d.exposure, kPositions, kScenarios, d.d_pnl);
        CUDA_CHECK(cudaMemcpyAsync(d.h_pnl, d.d_pnl, kScenarios * sizeof(float),
                                   cudaMemcpyDeviceToHost, d.stream));
        CUDA_CHECK(cudaEventRecord(d.done, d.stream));
    }

    std::vector<float> limits(desks.size());
    auto load_limits = [&limits](size_t k) { limits[k] = 2.5e4f * (k + 1); };

    std::vector<float> losses(kScenarios);
    for (size_t i = 0; i < desks.size(); ++i) {
        auto& d = desks[i];
        cudaError_t q;
        while ((q = cudaEventQuery(d.done)) == cudaErrorNotReady)
            load_limits(i); // CPU-side work while the desk's copy runs
        if (q != cudaSuccess) {
            fprintf(stderr, "desk %zu failed: %s\n", i, cudaGetErrorString(q));
            return 1;
        }
        load_limits(i);
        for (int s = 0; s < kScenarios; ++s) losses[s] = -d.h_pnl[s];
        std::nth_element(losses.begin(), losses.begin() + kScenarios / 100, losses.end(),
                         [](float a, float b) { return a > b; });
        float var99 = losses[kScenarios / 100];
        printf("desk %zu: 99%% VaR %.0f (limit %.0f)%s\n", i, var99, limits[i],
               var99 > limits[i] ? "  BREACH" : "");
    }

    for (auto& d : desks) {
        CUDA_CHECK(cudaEventDestroy(d.done));
        CUDA_CHECK(cudaStreamDestroy(d.stream));
        CUDA_CHECK(cudaFree(d.d_pnl));
        CUDA_CHECK(cudaFreeHost(d.h_pnl));
    }
    return 0;
}
