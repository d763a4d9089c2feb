// case: KV-cache arena built on VMM: the constructor maps the first physical chunk and launches the zero-fill kernel on it before cuMemSetAccess grants the device access (access is set one statement too late)
// expect: vmm_lifecycle=1
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

using half_bits = unsigned short;

__global__ void zero_fill(half_bits* kv, size_t elems) {
    size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    for (; i < elems; i += static_cast<size_t>(gridDim.x) * blockDim.x) kv[i] = 0;
}

class KvArena {
public:
    KvArena(int device, size_t max_bytes, cudaStream_t stream) : stream_(stream) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        CU_CHECK(cuMemGetAllocationGranularity(&gran_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        reserved_ = (max_bytes + gran_ - 1) / gran_ * gran_;
        chunk_ = gran_ * 16;
        CU_CHECK(cuMemAddressReserve(&this->base_, reserved_, gran_, 0, 0));
        CU_CHECK(cuMemCreate(&this->chunk_handle_, chunk_, &prop_, 0));
        CU_CHECK(cuMemMap(this->base_, chunk_, 0, this->chunk_handle_, 0));

        size_t elems = chunk_ / sizeof(half_bits);
        zero_fill<<<256, 256, 0, stream_>>>(reinterpret_cast<half_bits*>(this->base_), elems); // EXPECT: vmm_lifecycle

        CUmemAccessDesc access = {};
        access.location = prop_.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(this->base_, chunk_, &access, 1));
    }

    ~KvArena() {
        cudaStreamSynchronize(stream_);
        cuMemUnmap(base_, chunk_);
        cuMemRelease(chunk_handle_);
        cuMemAddressFree(base_, reserved_);
    }

    half_bits* data() const { return reinterpret_cast<half_bits*>(base_); }
    size_t bytes() const { return chunk_; }

private:
    cudaStream_t stream_;
    CUmemAllocationProp prop_ = {};
    size_t gran_ = 0;
    size_t reserved_ = 0;
    size_t chunk_ = 0;
    CUdeviceptr base_ = 0;
    CUmemGenericAllocationHandle chunk_handle_ = 0;
};

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    {
        KvArena arena(0, size_t(1) << 30, stream);
        cudaStreamSynchronize(stream);
        std::printf("kv arena ready: %zu bytes mapped\n", arena.bytes());
    }
    cudaStreamDestroy(stream);
    return 0;
}
