// case: a streaming feature ring maps one physical allocation twice, back to back (the mirrored ring trick), and a single kernel appends new samples through the low mapping and then, after only a __syncthreads, reads the moving window through the high mapping, with no fence.proxy.alias between the two proxies.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(expr)                                                           \
    do {                                                                         \
        CUresult r_ = (expr);                                                    \
        if (r_ != CUDA_SUCCESS) {                                                \
            const char* s_ = nullptr;                                            \
            cuGetErrorString(r_, &s_);                                           \
            fprintf(stderr, "%s failed: %s\n", #expr, s_);                       \
            return 1;                                                            \
        }                                                                        \
    } while (0)

// ring_lo: the ring's first mapping; ring_hi: the same physical pages mapped right after it.
// Samples are appended at logical slots head..head+k-1 (mod cap); the window of the newest
// `win` samples ending at the last slot is then read contiguously through ring_hi.
__global__ void append_and_window(float* ring_lo, const float* ring_hi, const float* fresh, int k,
                                  int head, int cap, int win, float* window_out) {
    for (int i = threadIdx.x; i < k; i += blockDim.x) ring_lo[(head + i) % cap] = fresh[i];
    __syncthreads();
    const int last = (head + k - 1) % cap;
    for (int j = threadIdx.x; j < win; j += blockDim.x) window_out[j] = ring_hi[last - win + 1 + j];
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t ring_bytes = gran;  // one granule: cap floats
    const int cap = int(ring_bytes / sizeof(float));

    CUmemGenericAllocationHandle phys;
    CU_CHECK(cuMemCreate(&phys, ring_bytes, &prop, 0));
    CUdeviceptr va = 0;
    CU_CHECK(cuMemAddressReserve(&va, 2 * ring_bytes, 0, 0, 0));
    CU_CHECK(cuMemMap(va, ring_bytes, 0, phys, 0));
    CU_CHECK(cuMemMap(va + ring_bytes, ring_bytes, 0, phys, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(va, 2 * ring_bytes, &access, 1));
    CU_CHECK(cuMemsetD32(va, 0, cap));

    float* ring_lo = reinterpret_cast<float*>(va);
    const float* ring_hi = reinterpret_cast<const float*>(va + ring_bytes);

    const int k = 768, win = 1024;
    float *d_fresh, *d_window;
    cudaMalloc(&d_fresh, k * sizeof(float));
    cudaMalloc(&d_window, win * sizeof(float));
    std::vector<float> fresh(k), window(win);

    int head = 0;
    double acc = 0.0;
    for (int step = 0; step < 64; ++step) {
        for (int i = 0; i < k; ++i) fresh[i] = float(step * k + i);
        cudaMemcpy(d_fresh, fresh.data(), k * sizeof(float), cudaMemcpyHostToDevice);
        append_and_window<<<1, 256>>>(ring_lo, ring_hi, d_fresh, k, head, cap, win, d_window); // EXPECT: unfenced_vmm_alias
        cudaMemcpy(window.data(), d_window, win * sizeof(float), cudaMemcpyDeviceToHost);
        acc += window[win - 1];
        head = (head + k) % cap;
    }
    printf("sum of newest samples: %.0f\n", acc);

    cudaFree(d_fresh);
    cudaFree(d_window);
    CU_CHECK(cuMemUnmap(va, ring_bytes));
    CU_CHECK(cuMemUnmap(va + ring_bytes, ring_bytes));
    CU_CHECK(cuMemRelease(phys));
    CU_CHECK(cuMemAddressFree(va, 2 * ring_bytes));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
