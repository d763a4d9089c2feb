// case: a packet-inspection engine keeps per-signature match counters in mapped (zero-copy) pinned memory without the write-combined flag, passes the device alias to the kernel, and reads the host pointer only after synchronizing
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(x)                                                                  \
    do {                                                                               \
        cudaError_t e = (x);                                                           \
        if (e != cudaSuccess) {                                                        \
            std::fprintf(stderr, "ids: %s -> %s\n", #x, cudaGetErrorString(e));        \
            std::exit(1);                                                              \
        }                                                                              \
    } while (0)

constexpr int kSigs = 64;
constexpr int kSigLen = 4;
constexpr int kPktLen = 1500;

__constant__ uint8_t c_sigs[kSigs][kSigLen];

__global__ void match_packets(const uint8_t* pkts, int n_pkts, unsigned int* counters) {
    int p = blockIdx.x;
    if (p >= n_pkts) return;
    const uint8_t* pkt = pkts + (size_t)p * kPktLen;
    for (int off = threadIdx.x; off + kSigLen <= kPktLen; off += blockDim.x)
        for (int s = 0; s < kSigs; ++s) {
            bool hit = true;
            for (int k = 0; k < kSigLen && hit; ++k) hit = pkt[off + k] == c_sigs[s][k];
            if (hit) atomicAdd(&counters[s], 1u);
        }
}

int main() {
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));

    uint8_t sigs[kSigs][kSigLen];
    for (int s = 0; s < kSigs; ++s)
        for (int k = 0; k < kSigLen; ++k) sigs[s][k] = (uint8_t)(s * 7 + k * 13);
    CUDA_CHECK(cudaMemcpyToSymbol(c_sigs, sigs, sizeof(sigs)));
    CUDA_CHECK(cudaDeviceSynchronize());   // the match stream below does not wait for the legacy stream

    unsigned int* h_counters = nullptr;
    unsigned int* d_counters = nullptr;
    CUDA_CHECK(cudaHostAlloc(&h_counters, kSigs * sizeof(unsigned int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(&d_counters, h_counters, 0));
    std::memset(h_counters, 0, kSigs * sizeof(unsigned int));

    const int n_pkts = 8192;
    uint8_t* h_pkts = nullptr;
    uint8_t* d_pkts = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_pkts, (size_t)n_pkts * kPktLen));
    CUDA_CHECK(cudaMalloc(&d_pkts, (size_t)n_pkts * kPktLen));
    for (size_t i = 0; i < (size_t)n_pkts * kPktLen; ++i) h_pkts[i] = (uint8_t)((i * 2654435761u) >> 13);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_pkts, h_pkts, (size_t)n_pkts * kPktLen, cudaMemcpyHostToDevice, s));
    match_packets<<<n_pkts, 128, 0, s>>>(d_pkts, n_pkts, d_counters);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(s));

    unsigned long total = 0;
    int noisiest = 0;
    for (int sgn = 0; sgn < kSigs; ++sgn) {
        total += h_counters[sgn];
        if (h_counters[sgn] > h_counters[noisiest]) noisiest = sgn;
    }
    std::printf("%lu signature hits, noisiest signature %d (%u)\n", total, noisiest, h_counters[noisiest]);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_pkts));
    CUDA_CHECK(cudaFreeHost(h_pkts));
    CUDA_CHECK(cudaFreeHost(h_counters));
    return 0;
}
