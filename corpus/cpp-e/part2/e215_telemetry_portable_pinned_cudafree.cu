// case: a multi-GPU telemetry aggregator allocates a portable pinned gather buffer with cudaHostAlloc and, in its shutdown helper, releases it with cudaFree (pinned host memory must go to cudaFreeHost).
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::abort(); } } while (0)

constexpr int kCounters = 1 << 16;

__global__ void sample_counters(uint64_t* counters, int n, uint64_t tick) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) counters[i] += tick * (i % 13 + 1);
}

struct DeviceSlot {
    int device = 0;
    cudaStream_t stream{};
    uint64_t* d_counters = nullptr;
};

static uint64_t* g_gather = nullptr;   // pinned, portable: every device's stream copies into it

static void setup(std::vector<DeviceSlot>& slots) {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&g_gather),
                             slots.size() * kCounters * sizeof(uint64_t), cudaHostAllocPortable));
    for (auto& s : slots) {
        CUDA_CHECK(cudaSetDevice(s.device));
        CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&s.d_counters, kCounters * sizeof(uint64_t)));
        CUDA_CHECK(cudaMemsetAsync(s.d_counters, 0, kCounters * sizeof(uint64_t), s.stream));
    }
}

static uint64_t collect(std::vector<DeviceSlot>& slots, uint64_t tick) {
    for (size_t k = 0; k < slots.size(); ++k) {
        DeviceSlot& s = slots[k];
        CUDA_CHECK(cudaSetDevice(s.device));
        sample_counters<<<kCounters / 256, 256, 0, s.stream>>>(s.d_counters, kCounters, tick);
        CUDA_CHECK(cudaMemcpyAsync(g_gather + k * kCounters, s.d_counters, kCounters * sizeof(uint64_t),
                                   cudaMemcpyDeviceToHost, s.stream));
    }
    for (auto& s : slots) CUDA_CHECK(cudaStreamSynchronize(s.stream));
    uint64_t total = 0;
    for (size_t i = 0; i < slots.size() * kCounters; ++i) total += g_gather[i];
    return total;
}

static void shutdown(std::vector<DeviceSlot>& slots) {
    for (auto& s : slots) {
        CUDA_CHECK(cudaSetDevice(s.device));
        CUDA_CHECK(cudaStreamSynchronize(s.stream));
        CUDA_CHECK(cudaFree(s.d_counters));
        CUDA_CHECK(cudaStreamDestroy(s.stream));
    }
    cudaFree(g_gather); // EXPECT: mismatched_free
    g_gather = nullptr;
}

int main() {
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    std::vector<DeviceSlot> slots(count > 0 ? count : 1);
    for (int d = 0; d < int(slots.size()); ++d) slots[d].device = d;
    setup(slots);
    for (uint64_t tick = 1; tick <= 5; ++tick)
        std::printf("tick %llu total %llu\n", (unsigned long long)tick, (unsigned long long)collect(slots, tick));
    shutdown(slots);
    return 0;
}
