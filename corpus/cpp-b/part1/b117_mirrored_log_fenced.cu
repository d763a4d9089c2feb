// case: mirrored ring buffer for a log shipper (one cuMemCreate allocation mapped at base and base+size of one reservation); the kernel writes through the base view and reads the wrap-around through the mirror after fence.proxy.alias
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                       \
    do {                                                                     \
        CUresult r_ = (call);                                                \
        if (r_ != CUDA_SUCCESS) {                                            \
            const char* msg_ = nullptr;                                      \
            cuGetErrorString(r_, &msg_);                                     \
            std::fprintf(stderr, "%s failed: %s\n", #call, msg_);            \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void append_and_compact(unsigned int* ring, const unsigned int* mirror, size_t size_words,
                                   size_t head, unsigned int* out, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    size_t slot = (head + i) % size_words;
    ring[slot] = 0xC0DE0000u | static_cast<unsigned int>(i);
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = mirror[slot];
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
        size_ = (min_bytes + gran - 1) / gran * gran;
        CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
        CU_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));
        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base_, 2 * size_, &access, 1));
    }
    ~MirroredRing() {
        cuCtxSynchronize();
        cuMemUnmap(base_, 2 * size_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, 2 * size_);
    }
    unsigned int* view() const { return reinterpret_cast<unsigned int*>(base_); }
    const unsigned int* mirror() const { return reinterpret_cast<const unsigned int*>(base_ + size_); }
    size_t words() const { return size_ / sizeof(unsigned int); }

private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
};

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);
    MirroredRing ring(0, 4u << 20);
    const int batch = 4096;
    unsigned int* d_out = nullptr;
    cudaMalloc(&d_out, batch * sizeof(unsigned int));
    size_t head = ring.words() - 1000;
    append_and_compact<<<batch / 256, 256>>>(ring.view(), ring.mirror(), ring.words(), head, d_out, batch);
    unsigned int first = 0;
    cudaMemcpy(&first, d_out, sizeof(first), cudaMemcpyDeviceToHost);
    std::printf("first record %08x\n", first);
    cudaFree(d_out);
    return 0;
}
