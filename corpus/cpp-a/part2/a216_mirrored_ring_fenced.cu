// case: MirroredRing class maps one allocation at base_ and base_ + size_; the append kernel writes through the primary view and reads through the mirror view after fence.proxy.alias: near-miss, the fence makes the alias coherent
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CU_CHECK(x)                                                            \
    do {                                                                       \
        CUresult r_ = (x);                                                     \
        if (r_ != CUDA_SUCCESS) {                                              \
            std::fprintf(stderr, "%s failed (%d)\n", #x, (int)r_);             \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void append_fenced(uint64_t* ring, const uint64_t* mirror, size_t cap, size_t head, size_t n,
                              uint64_t* forwarded) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    ring[(head + i) % cap] = ((uint64_t)(head + i) << 32) | 0xfeedu;
    asm volatile("fence.proxy.alias;" ::: "memory");
    forwarded[i] = mirror[(head + i) % cap];
}

class MirroredRing {
public:
    MirroredRing(int device, size_t min_bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = ((min_bytes + gran - 1) / gran) * gran;
        CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
        CU_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base_, 2 * size_, &acc, 1));
    }
    ~MirroredRing() {
        cuCtxSynchronize();
        cuMemUnmap(base_, size_);
        cuMemUnmap(base_ + size_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, 2 * size_);
    }
    uint64_t* primary() const { return reinterpret_cast<uint64_t*>(base_); }
    const uint64_t* mirror() const { return reinterpret_cast<const uint64_t*>(base_ + size_); }
    size_t capacity() const { return size_ / sizeof(uint64_t); }

private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
};

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const size_t n = 4096;
    uint64_t* d_fwd = nullptr;
    uint64_t* h_fwd = nullptr;
    cudaMalloc(&d_fwd, n * sizeof(uint64_t));
    cudaMallocHost(&h_fwd, n * sizeof(uint64_t));
    {
        MirroredRing ring(0, 1u << 20);
        size_t head = ring.capacity() - 100;
        append_fenced<<<(unsigned)((n + 127) / 128), 128, 0, s>>>(ring.primary(), ring.mirror(), ring.capacity(), head, n, d_fwd);
        cudaMemcpyAsync(h_fwd, d_fwd, n * sizeof(uint64_t), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
    }
    std::printf("forwarded[0] = %llx\n", (unsigned long long)h_fwd[0]);
    cudaFreeHost(h_fwd);
    cudaFree(d_fwd);
    cudaStreamDestroy(s);
    return 0;
}
