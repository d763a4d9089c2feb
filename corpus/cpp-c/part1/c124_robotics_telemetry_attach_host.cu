// case: a drive controller allocates its telemetry ring with cudaMallocManaged(..., cudaMemAttachHost) and logs into it from the host while the occupancy-grid kernel (device buffers only) runs; before a kernel uses the ring it is attached to the stream with cudaStreamAttachMemAsync, and the host reads the summary only after that stream is synchronized.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) { std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } \
    } while (0)

struct TelemetrySample {
    uint64_t stamp_ns;
    float wheel_rpm[4];
    float motor_current[4];
    float battery_v;
};

struct TelemetrySummary { float max_current; float min_battery; };

constexpr int kGrid = 1024;
constexpr int kRing = 4096;

__global__ void integrate_occupancy(const float2* hits, int n, float* log_odds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int gx = min(max(int(hits[i].x * 20.f) + kGrid / 2, 0), kGrid - 1);
    int gy = min(max(int(hits[i].y * 20.f) + kGrid / 2, 0), kGrid - 1);
    atomicAdd(&log_odds[gy * kGrid + gx], 0.85f);
}

__global__ void summarize(const TelemetrySample* ring, int n, TelemetrySummary* out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    TelemetrySummary s{0.f, 1e9f};
    for (int i = 0; i < n; ++i) {
        for (int m = 0; m < 4; ++m) s.max_current = fmaxf(s.max_current, ring[i].motor_current[m]);
        s.min_battery = fminf(s.min_battery, ring[i].battery_v);
    }
    *out = s;
}

int main() {
    TelemetrySample* ring = nullptr;
    TelemetrySummary* summary = nullptr;
    CHECK(cudaMallocManaged(&ring, kRing * sizeof(TelemetrySample), cudaMemAttachHost));
    CHECK(cudaMallocManaged(&summary, sizeof(TelemetrySummary), cudaMemAttachHost));

    float2* d_hits = nullptr;
    float* d_grid = nullptr;
    const int hits = 1 << 18;
    CHECK(cudaMalloc(&d_hits, hits * sizeof(float2)));
    CHECK(cudaMalloc(&d_grid, kGrid * kGrid * sizeof(float)));
    CHECK(cudaMemset(d_hits, 0, hits * sizeof(float2)));
    CHECK(cudaMemset(d_grid, 0, kGrid * kGrid * sizeof(float)));

    cudaStream_t mapping, diag;
    CHECK(cudaStreamCreate(&mapping));
    CHECK(cudaStreamCreate(&diag));

    integrate_occupancy<<<(hits + 255) / 256, 256, 0, mapping>>>(d_hits, hits, d_grid);

    // Host-attached managed memory: legal to touch while kernels run, on every device.
    for (int i = 0; i < kRing; ++i) {
        ring[i].stamp_ns = 1'000'000ull * i;
        for (int m = 0; m < 4; ++m) { ring[i].wheel_rpm[m] = 120.f; ring[i].motor_current[m] = 3.f + (i % 17) * 0.1f; }
        ring[i].battery_v = 48.f - i * 1e-4f;
    }

    CHECK(cudaStreamAttachMemAsync(diag, ring, 0, cudaMemAttachSingle));
    CHECK(cudaStreamAttachMemAsync(diag, summary, 0, cudaMemAttachSingle));
    summarize<<<1, 1, 0, diag>>>(ring, kRing, summary);
    CHECK(cudaStreamSynchronize(diag));

    std::printf("max motor current %.2f A, min battery %.2f V\n", summary->max_current, summary->min_battery);

    CHECK(cudaStreamSynchronize(mapping));
    CHECK(cudaFree(d_grid));
    CHECK(cudaFree(d_hits));
    CHECK(cudaFree(summary));
    CHECK(cudaFree(ring));
    CHECK(cudaStreamDestroy(mapping));
    CHECK(cudaStreamDestroy(diag));
    return 0;
}
