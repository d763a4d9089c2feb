// case: a deep-packet-inspection stage writes per-packet verdicts into mapped pinned memory (cudaHostAllocMapped, no write-combining) through the pointer from cudaHostGetDevicePointer and keeps its rule table in managed memory; the host dereferences only the host pointer of the mapped buffer and the managed table, both after cudaStreamSynchronize, never a cudaMalloc'd pointer.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); std::exit(1); } \
    } while (0)

constexpr int kPackets = 1 << 16;
constexpr int kPayload = 256;
constexpr int kRules = 32;

struct Rule { uint8_t pattern[8]; int len; int action; uint32_t hits; };

__global__ void inspect(const uint8_t* payloads, int packets, Rule* rules, int nrules, uint8_t* verdict_dev) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= packets) return;
    const uint8_t* pl = payloads + static_cast<size_t>(p) * kPayload;
    uint8_t v = 0;
    for (int r = 0; r < nrules && !v; ++r) {
        for (int off = 0; off + rules[r].len <= kPayload && !v; ++off) {
            bool m = true;
            for (int k = 0; k < rules[r].len && m; ++k) m = pl[off + k] == rules[r].pattern[k];
            if (m) { v = static_cast<uint8_t>(rules[r].action); atomicAdd(&rules[r].hits, 1u); }
        }
    }
    verdict_dev[p] = v;
}

int main() {
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));

    uint8_t* verdict_host = nullptr;
    uint8_t* verdict_dev = nullptr;
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&verdict_host), kPackets, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&verdict_dev), verdict_host, 0));

    Rule* rules = nullptr;
    CUDA_CHECK(cudaMallocManaged(&rules, kRules * sizeof(Rule)));
    std::memset(rules, 0, kRules * sizeof(Rule));
    std::memcpy(rules[0].pattern, "\x90\x90\x90\x90", 4); rules[0].len = 4; rules[0].action = 2;   // NOP sled: drop
    std::memcpy(rules[1].pattern, "GET /adm", 8);          rules[1].len = 8; rules[1].action = 1;   // flag

    uint8_t* d_payloads = nullptr;
    CUDA_CHECK(cudaMalloc(&d_payloads, static_cast<size_t>(kPackets) * kPayload));
    CUDA_CHECK(cudaMemset(d_payloads, 0x41, static_cast<size_t>(kPackets) * kPayload));
    CUDA_CHECK(cudaMemset(d_payloads + 100 * kPayload + 17, 0x90, 8));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    inspect<<<(kPackets + 255) / 256, 256, 0, s>>>(d_payloads, kPackets, rules, 2, verdict_dev);
    CUDA_CHECK(cudaStreamSynchronize(s));

    int dropped = 0, flagged = 0;
    for (int p = 0; p < kPackets; ++p) {
        dropped += verdict_host[p] == 2;
        flagged += verdict_host[p] == 1;
    }
    std::printf("dropped %d flagged %d (rule 0 hits: %u)\n", dropped, flagged, rules[0].hits);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_payloads));
    CUDA_CHECK(cudaFree(rules));
    CUDA_CHECK(cudaFreeHost(verdict_host));
    return 0;
}
