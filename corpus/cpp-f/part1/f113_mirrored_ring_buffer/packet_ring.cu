// case: a network-packet capture pipeline uses a header class that maps one VMM allocation twice back to back (mirrored ring); its kernel writes packets through the upper view and reads them back through the lower view without fence.proxy.alias.
// expect: unfenced_vmm_alias=1
#include "vmm_ring.h"
#include <cuda_runtime.h>
#include <vector>

// Writes each packet at the wrapped tail through the upper alias, then checksums
// it by reading the same bytes through the lower alias.
__global__ void ingest_and_checksum(unsigned* ring_upper, const unsigned* ring_lower,
                                    const unsigned* packets, unsigned* sums,
                                    size_t ring_words, int npackets, int words_per_packet) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npackets) return;
    size_t off = (size_t)p * words_per_packet % ring_words;
    for (int w = 0; w < words_per_packet; ++w)
        ring_upper[off + w] = packets[(size_t)p * words_per_packet + w];
    unsigned s = 0;
    for (int w = 0; w < words_per_packet; ++w)
        s += ring_lower[off + w];
    sums[p] = s;
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    const int npackets = 8192, wpp = 384;   // 1.5 KiB packets
    std::vector<unsigned> sums(npackets);
    unsigned *d_packets, *d_sums;
    cudaMalloc(&d_packets, (size_t)npackets * wpp * sizeof(unsigned));
    cudaMalloc(&d_sums, npackets * sizeof(unsigned));
    cudaMemset(d_packets, 0x5a, (size_t)npackets * wpp * sizeof(unsigned));
    {
        MirroredRing ring(0, 4u << 20);
        size_t ring_words = ring.bytes() / sizeof(unsigned);
        ingest_and_checksum<<<(npackets + 127) / 128, 128>>>(
            reinterpret_cast<unsigned*>(ring.upper()),
            reinterpret_cast<const unsigned*>(ring.lower()),
            d_packets, d_sums, ring_words, npackets, wpp);
        cudaMemcpy(sums.data(), d_sums, npackets * sizeof(unsigned), cudaMemcpyDeviceToHost);
    }
    unsigned long long total = 0;
    for (unsigned s : sums) total += s;
    printf("checksum total %llu\n", total);
    cudaFree(d_sums);
    cudaFree(d_packets);
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
