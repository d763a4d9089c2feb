// case: the same mirrored ring (one physical allocation mapped twice back to back), but the kernel that writes through the low mapping and reads through the high one executes fence.proxy.alias between the two, and a snapshot copy through the high mapping on a second stream waits on an event recorded after the kernel, so both alias uses are correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

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

#define RT_CHECK(expr)                                                           \
    do {                                                                         \
        cudaError_t e_ = (expr);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_));   \
            return 1;                                                            \
        }                                                                        \
    } while (0)

__global__ void append_and_window(float* ring_lo, const float* ring_hi, const float* fresh, int k,
                                  int head, int cap, int win, float* window_out) {
    for (int i = threadIdx.x; i < k; i += blockDim.x) ring_lo[(head + i) % cap] = fresh[i];
    // make the stores through the low proxy visible to loads through the high proxy
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    asm volatile("fence.proxy.alias;" ::: "memory");
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
    const size_t ring_bytes = gran;
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

    float* ring_lo = reinterpret_cast<float*>(va);
    const float* ring_hi = reinterpret_cast<const float*>(va + ring_bytes);

    cudaStream_t s_ingest, s_snap;
    RT_CHECK(cudaStreamCreateWithFlags(&s_ingest, cudaStreamNonBlocking));
    RT_CHECK(cudaStreamCreateWithFlags(&s_snap, cudaStreamNonBlocking));
    cudaEvent_t appended;
    RT_CHECK(cudaEventCreateWithFlags(&appended, cudaEventDisableTiming));
    CU_CHECK(cuMemsetD32Async(va, 0, cap, s_ingest));

    const int k = 768, win = 1024;
    float *h_fresh, *h_window, *d_fresh, *d_window, *d_snapshot;
    RT_CHECK(cudaMallocHost(&h_fresh, k * sizeof(float)));
    RT_CHECK(cudaMallocHost(&h_window, win * sizeof(float)));
    RT_CHECK(cudaMalloc(&d_fresh, k * sizeof(float)));
    RT_CHECK(cudaMalloc(&d_window, win * sizeof(float)));
    RT_CHECK(cudaMalloc(&d_snapshot, ring_bytes));

    int head = 0;
    double acc = 0.0;
    for (int step = 0; step < 64; ++step) {
        for (int i = 0; i < k; ++i) h_fresh[i] = float(step * k + i);
        RT_CHECK(cudaMemcpyAsync(d_fresh, h_fresh, k * sizeof(float), cudaMemcpyHostToDevice, s_ingest));
        append_and_window<<<1, 256, 0, s_ingest>>>(ring_lo, ring_hi, d_fresh, k, head, cap, win, d_window);
        RT_CHECK(cudaGetLastError());
        RT_CHECK(cudaEventRecord(appended, s_ingest));
        if (step % 16 == 15) {
            // checkpoint the whole ring through the high mapping, ordered after the writer
            RT_CHECK(cudaStreamWaitEvent(s_snap, appended, 0));
            RT_CHECK(cudaMemcpyAsync(d_snapshot, ring_hi, ring_bytes, cudaMemcpyDeviceToDevice, s_snap));
            // the next append overwrites the ring: keep it behind the snapshot
            cudaEvent_t snap_done;
            RT_CHECK(cudaEventCreateWithFlags(&snap_done, cudaEventDisableTiming));
            RT_CHECK(cudaEventRecord(snap_done, s_snap));
            RT_CHECK(cudaStreamWaitEvent(s_ingest, snap_done, 0));
            RT_CHECK(cudaEventDestroy(snap_done));
        }
        RT_CHECK(cudaMemcpyAsync(h_window, d_window, win * sizeof(float), cudaMemcpyDeviceToHost, s_ingest));
        RT_CHECK(cudaStreamSynchronize(s_ingest));
        acc += h_window[win - 1];
        head = (head + k) % cap;
    }
    RT_CHECK(cudaStreamSynchronize(s_snap));
    printf("sum of newest samples: %.0f\n", acc);

    RT_CHECK(cudaEventDestroy(appended));
    RT_CHECK(cudaStreamDestroy(s_ingest));
    RT_CHECK(cudaStreamDestroy(s_snap));
    RT_CHECK(cudaFree(d_fresh));
    RT_CHECK(cudaFree(d_window));
    RT_CHECK(cudaFree(d_snapshot));
    RT_CHECK(cudaFreeHost(h_fresh));
    RT_CHECK(cudaFreeHost(h_window));
    CU_CHECK(cuMemUnmap(va, ring_bytes));
    CU_CHECK(cuMemUnmap(va + ring_bytes, ring_bytes));
    CU_CHECK(cuMemRelease(phys));
    CU_CHECK(cuMemAddressFree(va, 2 * ring_bytes));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
