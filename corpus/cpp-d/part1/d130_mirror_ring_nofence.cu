// case: GPU packet ring built as a mirrored VMM buffer (one physical allocation mapped at base and at base + size, both granted access); the fused push-and-echo kernel writes each packet through the base view and reads it back through the mirror view in the same launch, with no fence.proxy.alias between the two accesses.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorName(r_, &s_);                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?");      \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

constexpr int kPacketWords = 16;

// ring: the base view, indexed modulo capacity; mirror: the same words mapped right after it
__global__ void push_and_echo(unsigned int* ring, const unsigned int* mirror, size_t cap_words,
                              size_t head, int packets, unsigned int* echo)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= packets) return;
    size_t slot0 = (head + (size_t)p * kPacketWords) % cap_words;
    unsigned int crc = 0;
    for (int w = 0; w < kPacketWords; ++w) {
        size_t slot = (slot0 + w) % cap_words;
        unsigned int word = 0x9E3779B9u * (unsigned int)(p * kPacketWords + w) ^ 0xA5A5A5A5u;
        ring[slot] = word;       // producer side, base view
        crc = crc * 31u + mirror[slot]; // consumer side, mirror view of the same word
    }
    echo[p] = crc;
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t size = 8 * gran;

    CUmemGenericAllocationHandle handle;
    CU_CHECK(cuMemCreate(&handle, size, &prop, 0));
    CUdeviceptr base = 0;
    CU_CHECK(cuMemAddressReserve(&base, 2 * size, 0, 0, 0));
    CU_CHECK(cuMemMap(base, size, 0, handle, 0));
    CU_CHECK(cuMemMap(base + size, size, 0, handle, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base, size, &acc, 1));
    CU_CHECK(cuMemSetAccess(base + size, size, &acc, 1));

    unsigned int* ring = reinterpret_cast<unsigned int*>(base);
    const unsigned int* mirror = reinterpret_cast<const unsigned int*>(base + size);
    const size_t cap_words = size / sizeof(unsigned int);
    const int packets = 4096;

    unsigned int* d_echo = nullptr;
    cudaMalloc(&d_echo, packets * sizeof(unsigned int));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    CU_CHECK(cuMemsetD32Async(base, 0, cap_words, s));

    size_t head = cap_words - 7 * kPacketWords; // the batch wraps around the end of the ring
    push_and_echo<<<packets / 128, 128, 0, s>>>(ring, mirror, cap_words, head, packets, d_echo); // EXPECT: unfenced_vmm_alias
    cudaStreamSynchronize(s);

    unsigned int h_echo[4] = {0};
    cudaMemcpy(h_echo, d_echo, sizeof(h_echo), cudaMemcpyDeviceToHost);
    printf("echo crc of first packets: %08x %08x %08x %08x\n", h_echo[0], h_echo[1], h_echo[2], h_echo[3]);

    cudaFree(d_echo);
    cudaStreamDestroy(s);
    CU_CHECK(cuMemUnmap(base, size));
    CU_CHECK(cuMemUnmap(base + size, size));
    CU_CHECK(cuMemRelease(handle));
    CU_CHECK(cuMemAddressFree(base, 2 * size));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
