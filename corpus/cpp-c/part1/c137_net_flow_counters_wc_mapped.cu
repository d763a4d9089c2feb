// case: a flow-telemetry exporter lets the GPU write per-flow byte counters straight into mapped host memory allocated with cudaHostAllocMapped | cudaHostAllocWriteCombined; after synchronizing, the host ranks the flows by reading those counters, reads of write-combined memory.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#define CUDA_OK(stmt)                                                                 \
    do {                                                                              \
        cudaError_t e__ = (stmt);                                                     \
        if (e__ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s failed: %s\n", #stmt, cudaGetErrorString(e__)); \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

constexpr int kFlows = 1 << 16;
constexpr int kPackets = 1 << 22;

struct PacketMeta { uint32_t flow_hash; uint16_t len; uint16_t pad; };

__global__ void synth_packets(PacketMeta* pk, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) pk[i] = PacketMeta{static_cast<uint32_t>(i * 2654435761u), static_cast<uint16_t>(64 + i % 1400), 0};
}

// One thread per flow bucket aggregates its packets and writes the total through the mapped pointer.
__global__ void aggregate_flows(const PacketMeta* pk, int n, unsigned long long* counters_mapped) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= kFlows) return;
    unsigned long long bytes = 0;
    for (int i = f; i < n; i += kFlows) bytes += pk[i].len;
    counters_mapped[f] = bytes;
}

int main() {
    CUDA_OK(cudaSetDeviceFlags(cudaDeviceMapHost));

    unsigned long long* h_counters = nullptr;
    CUDA_OK(cudaHostAlloc(reinterpret_cast<void**>(&h_counters), kFlows * sizeof(unsigned long long),
                          cudaHostAllocMapped | cudaHostAllocWriteCombined));
    unsigned long long* d_counters = nullptr;
    CUDA_OK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_counters), h_counters, 0));

    PacketMeta* d_packets = nullptr;
    CUDA_OK(cudaMalloc(&d_packets, kPackets * sizeof(PacketMeta)));

    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    synth_packets<<<(kPackets + 255) / 256, 256, 0, s>>>(d_packets, kPackets);
    aggregate_flows<<<(kFlows + 255) / 256, 256, 0, s>>>(d_packets, kPackets, d_counters);
    CUDA_OK(cudaStreamSynchronize(s));

    std::vector<unsigned long long> totals(kFlows);
    for (int f = 0; f < kFlows; ++f) totals[f] = h_counters[f];  // EXPECT: write_combined_host_read

    std::vector<int> order(kFlows);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 10, order.end(),
                      [&](int a, int b) { return totals[a] > totals[b]; });
    for (int k = 0; k < 10; ++k)
        std::printf("flow %5d: %llu bytes\n", order[k], totals[order[k]]);

    CUDA_OK(cudaFree(d_packets));
    CUDA_OK(cudaFreeHost(h_counters));
    CUDA_OK(cudaStreamDestroy(s));
    return 0;
}
