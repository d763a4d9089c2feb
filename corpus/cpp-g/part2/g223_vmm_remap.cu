// case: a LoRA adapter swapper remaps a VMM weight range to another physical handle and launches a validation kernel on it before calling cuMemSetAccess again (a new mapping starts without access), and its destructor frees the reserved range with cuMemAddressFree before unmapping it.
// expect: vmm_lifecycle=2
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <stdexcept>
#include <vector>

#define VMM_OK(x)                                                                 \
    do {                                                                          \
        if ((x) != CUDA_SUCCESS) throw std::runtime_error("VMM call failed: " #x); \
    } while (0)

__global__ void fill_adapter(float* w, size_t n, float base) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) w[i] = base + 1e-4f * (i % 1000);
}

__global__ void validate_adapter(const float* w, size_t n, unsigned* bad) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n && !(w[i] == w[i])) atomicAdd(bad, 1u);  // NaN check
}

class AdapterSlot {
public:
    AdapterSlot(int device, size_t elems, cudaStream_t s) : elems_(elems), stream_(s) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        size_t gran = 0;
        VMM_OK(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        bytes_ = ((elems * sizeof(float) + gran - 1) / gran) * gran;
        VMM_OK(cuMemAddressReserve(&va_, bytes_, 0, 0, 0));
        VMM_OK(cuMemCreate(&current_, bytes_, &prop_, 0));
        VMM_OK(cuMemMap(va_, bytes_, 0, current_, 0));
        VMM_OK(cuMemSetAccess(va_, bytes_, &access_, 1));
        fill_adapter<<<blocks(), 256, 0, stream_>>>(weights(), elems_, 0.5f);
        cudaMalloc(&d_bad_, sizeof(unsigned));
    }

    // Swap in another adapter's physical pages (created and filled elsewhere).
    void swap_in(CUmemGenericAllocationHandle next) {
        cudaStreamSynchronize(stream_);
        VMM_OK(cuMemUnmap(va_, bytes_));
        VMM_OK(cuMemRelease(current_));
        current_ = next;
        VMM_OK(cuMemMap(va_, bytes_, 0, current_, 0));
        cudaMemsetAsync(d_bad_, 0, sizeof(unsigned), stream_);
        validate_adapter<<<blocks(), 256, 0, stream_>>>(weights(), elems_, d_bad_);
        VMM_OK(cuMemSetAccess(va_, bytes_, &access_, 1));
    }

    ~AdapterSlot() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_bad_);
        cuMemAddressFree(va_, bytes_);
        cuMemUnmap(va_, bytes_);
        cuMemRelease(current_);
    }

    float* weights() const { return reinterpret_cast<float*>(va_); }
    size_t bytes() const { return bytes_; }
    const CUmemAllocationProp& prop() const { return prop_; }

private:
    unsigned blocks() const { return static_cast<unsigned>((elems_ + 255) / 256); }
    size_t elems_;
    size_t bytes_ = 0;
    cudaStream_t stream_;
    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc access_ = {};
    CUmemGenericAllocationHandle current_ = 0;
    CUdeviceptr va_ = 0;
    unsigned* d_bad_ = nullptr;
};

int main() {
    VMM_OK(cuInit(0));
    cudaFree(nullptr);
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    {
        AdapterSlot slot(0, 8u << 20, stream);
        std::vector<CUmemGenericAllocationHandle> adapters(3);
        for (auto& h : adapters) VMM_OK(cuMemCreate(&h, slot.bytes(), &slot.prop(), 0));
        for (auto h : adapters) slot.swap_in(h);
        cudaStreamSynchronize(stream);
        std::printf("swapped %zu adapters\n", adapters.size());
    }
    cudaStreamDestroy(stream);
    return 0;
}
