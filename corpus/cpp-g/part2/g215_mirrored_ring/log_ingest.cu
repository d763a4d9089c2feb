// case: a GPU log-ingest kernel appends records into a mirrored VMM ring through its primary view and, in the same launch, reads the just-written slots back through the mirror view (base + size) with no fence.proxy.alias between the write and the read.
// expect: unfenced_vmm_alias=1
#include "mirrored_ring.cuh"
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

struct LogRecord {
    uint32_t ts;
    uint32_t level;
    uint64_t hash;
};

__global__ void append_and_scan(LogRecord* ring, const LogRecord* ring_mirror, size_t capacity,
                                size_t head, const uint64_t* incoming, int count,
                                unsigned* errors_seen) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        size_t slot = (head + i) % capacity;
        ring[slot].ts = head + i;
        ring[slot].level = static_cast<uint32_t>(incoming[i] & 7);
        ring[slot].hash = incoming[i];
    }
    __syncthreads();
    if (i < count) {
        // The scanner module addresses the ring through the second (mirror) mapping.
        const LogRecord& r = ring_mirror[(head + i) % capacity];
        if (r.level >= 6) atomicAdd(errors_seen, 1u);
    }
}

int main() {
    cuInit(0);
    CUdevice dev;
    CUcontext ctx;
    RING_CU(cuDeviceGet(&dev, 0));
    RING_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    RING_CU(cuCtxSetCurrent(ctx));
    {
        MirroredRing ring(0, 4 << 20);
        const size_t capacity = ring.bytes() / sizeof(LogRecord);
        const int batch = 1024;

        uint64_t* d_incoming = nullptr;
        unsigned* d_errors = nullptr;
        unsigned h_errors = 0;
        cudaStream_t stream;
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        cudaMalloc(&d_incoming, batch * sizeof(uint64_t));
        cudaMalloc(&d_errors, sizeof(unsigned));
        cudaMemsetAsync(d_errors, 0, sizeof(unsigned), stream);

        size_t head = capacity - batch / 2;  // this batch wraps around the end of the ring
        for (int round = 0; round < 8; ++round) {
            cudaMemsetAsync(d_incoming, round * 3 + 1, batch * sizeof(uint64_t), stream);
            append_and_scan<<<batch / 256, 256, 0, stream>>>(
                reinterpret_cast<LogRecord*>(ring.primary()),
                reinterpret_cast<const LogRecord*>(ring.mirror()), capacity, head, d_incoming,
                batch, d_errors);
            head = (head + batch) % capacity;
        }
        cudaMemcpyAsync(&h_errors, d_errors, sizeof(unsigned), cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
        std::printf("%u error records\n", h_errors);
        cudaFree(d_incoming);
        cudaFree(d_errors);
        cudaStreamDestroy(stream);
    }
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
