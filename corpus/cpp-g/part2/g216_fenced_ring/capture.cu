// case: a packet-capture kernel writes headers through the front view of a double-mapped VMM ring and reads them back through the back view only after fence.proxy.alias, and a later kernel on the same stream reads the back view after the writer finished, so both alias uses are ordered.
// expect: none
#include "vmm_ring.h"
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

struct PacketHeader {
    uint32_t src_ip, dst_ip;
    uint16_t src_port, dst_port;
    uint32_t length;
};

__global__ void capture_and_classify(PacketHeader* front, const PacketHeader* back, size_t cap,
                                     size_t head, int n, unsigned* tcp_like) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    size_t slot = (head + i) % cap;
    front[slot].src_ip = 0x0a000001u + i;
    front[slot].dst_ip = 0x0a0000feu;
    front[slot].src_port = static_cast<uint16_t>(1024 + (i & 1023));
    front[slot].dst_port = static_cast<uint16_t>((i & 1) ? 443 : 53);
    front[slot].length = 64 + (i & 511);
    asm volatile("fence.proxy.alias;" ::: "memory");
    if (back[slot].dst_port == 443) atomicAdd(tcp_like, 1u);
}

__global__ void total_bytes(const PacketHeader* back, size_t cap, size_t head, int n,
                            unsigned long long* bytes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(bytes, (unsigned long long)back[(head + i) % cap].length);
}

int main() {
    PKT_CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    PKT_CU_CHECK(cuDeviceGet(&dev, 0));
    PKT_CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    PKT_CU_CHECK(cuCtxSetCurrent(ctx));

    unsigned h_tcp = 0;
    unsigned long long h_bytes = 0;
    {
        pkt::DoubleMappedRing<PacketHeader> ring(1 << 18);
        cudaStream_t stream;
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        unsigned* d_tcp = nullptr;
        unsigned long long* d_bytes = nullptr;
        cudaMalloc(&d_tcp, sizeof(unsigned));
        cudaMalloc(&d_bytes, sizeof(unsigned long long));
        cudaMemsetAsync(d_tcp, 0, sizeof(unsigned), stream);
        cudaMemsetAsync(d_bytes, 0, sizeof(unsigned long long), stream);

        const int burst = 4096;
        size_t head = 0;
        for (int b = 0; b < 16; ++b) {
            capture_and_classify<<<burst / 128, 128, 0, stream>>>(ring.front(), ring.back(),
                                                                  ring.capacity(), head, burst, d_tcp);
            total_bytes<<<burst / 128, 128, 0, stream>>>(ring.back(), ring.capacity(), head, burst,
                                                         d_bytes);
            head = (head + burst) % ring.capacity();
        }
        cudaMemcpyAsync(&h_tcp, d_tcp, sizeof(h_tcp), cudaMemcpyDeviceToHost, stream);
        cudaMemcpyAsync(&h_bytes, d_bytes, sizeof(h_bytes), cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
        cudaFree(d_tcp);
        cudaFree(d_bytes);
        cudaStreamDestroy(stream);
    }
    std::printf("%u HTTPS packets, %llu bytes\n", h_tcp, h_bytes);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
