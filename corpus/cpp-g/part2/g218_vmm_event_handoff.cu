// case: a streaming encoder maps one physical allocation at two reserved ranges and hands frames from a producer stream (writes through mapping A) to a consumer stream (reads through mapping B) with cuEventRecord/cuStreamWaitEvent in both directions, so every alias use is ordered.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <stdexcept>

#define CU_TRY(x)                                                                    \
    do {                                                                             \
        CUresult r_ = (x);                                                           \
        if (r_ != CUDA_SUCCESS) throw std::runtime_error("CUDA driver error: " #x);  \
    } while (0)

class DriverEvent {
public:
    DriverEvent() { CU_TRY(cuEventCreate(&ev_, CU_EVENT_DISABLE_TIMING)); }
    ~DriverEvent() { cuEventDestroy(ev_); }
    DriverEvent(const DriverEvent&) = delete;
    void record(CUstream s) { CU_TRY(cuEventRecord(ev_, s)); }
    void make_wait(CUstream s) { CU_TRY(cuStreamWaitEvent(s, ev_, 0)); }
private:
    CUevent ev_{};
};

__global__ void render_frame(float* frame, int n, int t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) frame[i] = __sinf(0.01f * i + t);
}

__global__ void quantize_frame(const float* frame, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_cast<unsigned char>((frame[i] * 0.5f + 0.5f) * 255.f);
}

int main() {
    CU_TRY(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_TRY(cuDeviceGet(&dev, 0));
    CU_TRY(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_TRY(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_TRY(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const int n = 1 << 20;
    const size_t bytes = ((n * sizeof(float) + gran - 1) / gran) * gran;

    CUmemGenericAllocationHandle handle;
    CUdeviceptr view_a = 0, view_b = 0;
    CU_TRY(cuMemCreate(&handle, bytes, &prop, 0));
    CU_TRY(cuMemAddressReserve(&view_a, bytes, 0, 0, 0));
    CU_TRY(cuMemAddressReserve(&view_b, bytes, 0, 0, 0));
    CU_TRY(cuMemMap(view_a, bytes, 0, handle, 0));
    CU_TRY(cuMemMap(view_b, bytes, 0, handle, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_TRY(cuMemSetAccess(view_a, bytes, &acc, 1));
    CU_TRY(cuMemSetAccess(view_b, bytes, &acc, 1));

    CUstream producer, consumer;
    CU_TRY(cuStreamCreate(&producer, CU_STREAM_NON_BLOCKING));
    CU_TRY(cuStreamCreate(&consumer, CU_STREAM_NON_BLOCKING));
    CUdeviceptr d_out = 0;
    CU_TRY(cuMemAlloc(&d_out, n));
    unsigned char* h_out = nullptr;
    CU_TRY(cuMemAllocHost(reinterpret_cast<void**>(&h_out), n));

    {
        DriverEvent rendered, consumed;
        for (int t = 0; t < 30; ++t) {
            if (t > 0) consumed.make_wait(producer);
            render_frame<<<n / 256, 256, 0, reinterpret_cast<cudaStream_t>(producer)>>>(
                reinterpret_cast<float*>(view_a), n, t);
            rendered.record(producer);
            rendered.make_wait(consumer);
            quantize_frame<<<n / 256, 256, 0, reinterpret_cast<cudaStream_t>(consumer)>>>(
                reinterpret_cast<const float*>(view_b), reinterpret_cast<unsigned char*>(d_out), n);
            consumed.record(consumer);
        }
        CU_TRY(cuMemcpyDtoHAsync(h_out, d_out, n, consumer));
        CU_TRY(cuStreamSynchronize(consumer));
        CU_TRY(cuStreamSynchronize(producer));
    }
    std::printf("last frame pixel[0]=%u pixel[n/2]=%u\n", h_out[0], h_out[n / 2]);

    CU_TRY(cuMemFreeHost(h_out));
    CU_TRY(cuMemFree(d_out));
    CU_TRY(cuStreamDestroy(producer));
    CU_TRY(cuStreamDestroy(consumer));
    CU_TRY(cuMemUnmap(view_a, bytes));
    CU_TRY(cuMemUnmap(view_b, bytes));
    CU_TRY(cuMemRelease(handle));
    CU_TRY(cuMemAddressFree(view_a, bytes));
    CU_TRY(cuMemAddressFree(view_b, bytes));
    CU_TRY(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
