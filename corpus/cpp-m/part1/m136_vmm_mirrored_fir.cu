// case: A streaming FIR filter keeps its delay line in a VMM mirrored ring (one physical allocation mapped at base and at base+size); each launch appends samples through the base mapping and reads its window through the mirror mapping in the same kernel with no fence.proxy.alias (unfenced_vmm_alias at the launch), and the ring's destructor frees the reserved range before unmapping it (vmm_lifecycle at cuMemAddressFree).
// expect: unfenced_vmm_alias=1, vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                             \
    do {                                                                           \
        CUresult r_ = (call);                                                      \
        if (r_ != CUDA_SUCCESS) {                                                  \
            const char* s_ = nullptr;                                              \
            cuGetErrorString(r_, &s_);                                             \
            std::fprintf(stderr, "%s: %s\n", #call, s_ ? s_ : "unknown");          \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));       \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

class MirroredRing {
public:
    MirroredRing(size_t min_bytes, int device) {
        CUmemAllocationProp prop{};
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
        CUmemAccessDesc access{};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base_, 2 * size_, &access, 1));
        CU_CHECK(cuMemsetD32(base_, 0, size_ / sizeof(float)));
    }
    ~MirroredRing() {
        cuMemAddressFree(base_, 2 * size_);  // EXPECT: vmm_lifecycle
        cuMemUnmap(base_, size_);
        cuMemUnmap(base_ + size_, size_);
        cuMemRelease(handle_);
    }
    MirroredRing(const MirroredRing&) = delete;
    MirroredRing& operator=(const MirroredRing&) = delete;

    float* data() const { return reinterpret_cast<float*>(base_); }
    float* mirror() const { return reinterpret_cast<float*>(base_ + size_); }
    size_t capacity() const { return size_ / sizeof(float); }

private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
};

constexpr int kBlock = 1024;

// One block: append n samples at `head`, then filter the window ending at each new sample.
// The window is contiguous in the mirror view even when it crosses the end of the ring.
__global__ void fir_append(float* ring, const float* ring_mirror, size_t cap, size_t head,
                           const float* __restrict__ in, const float* __restrict__ taps, int ntaps,
                           float* __restrict__ out, int n) {
    int i = threadIdx.x;
    if (i < n) ring[(head + i) % cap] = in[i];
    __syncthreads();
    if (i >= n) return;
    const float* window = ring_mirror + (head + i) % cap - (ntaps - 1);
    float acc = 0.0f;
    for (int k = 0; k < ntaps; ++k) acc += taps[ntaps - 1 - k] * window[k];
    out[i] = acc;
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    const int ntaps = 63;
    std::vector<float> taps(ntaps);
    for (int k = 0; k < ntaps; ++k) {
        float x = k - (ntaps - 1) / 2.0f;
        taps[k] = x == 0.0f ? 0.2f : std::sin(0.2f * float(M_PI) * x) / (float(M_PI) * x);
    }
    float *d_taps = nullptr, *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_taps, ntaps * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_in, kBlock * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, kBlock * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_taps, taps.data(), ntaps * sizeof(float), cudaMemcpyHostToDevice));

    {
        MirroredRing ring(size_t(1) << 20, 0);
        const size_t cap = ring.capacity();
        size_t head = 0;
        std::vector<float> block(kBlock), filtered(kBlock);
        double energy = 0.0;
        for (int b = 0; b < 2048; ++b) {
            for (int i = 0; i < kBlock; ++i) block[i] = std::sin(0.05f * (b * kBlock + i)) + 0.5f * std::sin(2.5f * i);
            CUDA_CHECK(cudaMemcpy(d_in, block.data(), kBlock * sizeof(float), cudaMemcpyHostToDevice));
            fir_append<<<1, kBlock>>>(ring.data(), ring.mirror(), cap, head, d_in, d_taps, ntaps, d_out, kBlock);  // EXPECT: unfenced_vmm_alias
            CUDA_CHECK(cudaGetLastError());
            CUDA_CHECK(cudaMemcpy(filtered.data(), d_out, kBlock * sizeof(float), cudaMemcpyDeviceToHost));
            for (float v : filtered) energy += double(v) * v;
            head = (head + kBlock) % cap;
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        std::printf("filtered energy per block: %.4f\n", energy / 2048);
    }

    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_taps));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
