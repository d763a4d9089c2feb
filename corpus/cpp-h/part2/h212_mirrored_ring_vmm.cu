// case: packet-capture ring buffer maps one physical allocation twice back to back (mirrored ring) and a single wrap-around kernel writes through the low view and reads through the high view with no fence.proxy.alias between.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void append_and_digest(unsigned* ring_lo, const unsigned* ring_hi, size_t words,
                                  size_t head, const unsigned* packets, int n_packets, unsigned* digest) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_packets) return;
    size_t slot = (head + i) % words;
    ring_lo[slot] = packets[i];
    __syncthreads();
    // read the record back through the upper mirror, which needs no wrap handling
    unsigned v = ring_hi[slot];
    atomicXor(digest, v * 2654435761u);
}

class MirroredRing {
public:
    explicit MirroredRing(size_t min_bytes) {
        CUdevice dev; cuCtxGetDevice(&dev);
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = dev;
        size_t gran = 0;
        cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
        size_ = ((min_bytes + gran - 1) / gran) * gran;
        cuMemCreate(&phys_, size_, &prop, 0);
        cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0);
        cuMemMap(base_, size_, 0, phys_, 0);
        cuMemMap(base_ + size_, size_, 0, phys_, 0);
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        cuMemSetAccess(base_, 2 * size_, &acc, 1);
    }
    ~MirroredRing() {
        cuMemUnmap(base_, size_);
        cuMemUnmap(base_ + size_, size_);
        cuMemRelease(phys_);
        cuMemAddressFree(base_, 2 * size_);
    }
    unsigned* low() const { return reinterpret_cast<unsigned*>(base_); }
    unsigned* high() const { return reinterpret_cast<unsigned*>(base_ + size_); }
    size_t words() const { return size_ / sizeof(unsigned); }

private:
    size_t size_ = 0;
    CUdeviceptr base_ = 0;
    CUmemGenericAllocationHandle phys_ = 0;
};

int main() {
    cudaFree(nullptr);
    const int n_packets = 1 << 16;
    unsigned *d_packets = nullptr, *d_digest = nullptr;
    cudaMalloc(&d_packets, n_packets * sizeof(unsigned));
    cudaMalloc(&d_digest, sizeof(unsigned));
    cudaMemset(d_packets, 0x5a, n_packets * sizeof(unsigned));
    cudaMemset(d_digest, 0, sizeof(unsigned));
    {
        MirroredRing ring(4 << 20);
        size_t head = 0;
        for (int burst = 0; burst < 16; ++burst) {
            append_and_digest<<<n_packets / 256, 256>>>(ring.low(), ring.high(), ring.words(), head,
                                                        d_packets, n_packets, d_digest);
            head = (head + n_packets) % ring.words();
        }
        cudaDeviceSynchronize();
    }
    unsigned digest = 0;
    cudaMemcpy(&digest, d_digest, sizeof(digest), cudaMemcpyDeviceToHost);
    printf("digest %08x\n", digest);
    cudaFree(d_packets); cudaFree(d_digest);
    return 0;
}
