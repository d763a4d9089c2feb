// case: TensorRT-plugin-style gather op on the driver API: reset_workspace() clears the cuMemAlloc'd workspace with a host memset through the CUdeviceptr, and terminate() releases the cuMemAllocHost index staging buffer with cuMemFree.
// expect: host_deref_device_ptr=1, mismatched_free=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorName(r_, &s_);                                              \
            fprintf(stderr, "%s: %s\n", #call, s_ ? s_ : "?");                    \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

__global__ void gather_rows(const float* table, const int* idx, float* out, int rows, int width)
{
    int r = blockIdx.x;
    if (r >= rows) return;
    for (int c = threadIdx.x; c < width; c += blockDim.x)
        out[(size_t)r * width + c] = table[(size_t)idx[r] * width + c];
}

class GatherPlugin {
public:
    static constexpr int kMaxRows = 4096;
    static constexpr int kWidth = 256;
    static constexpr size_t kIndexBytes = kMaxRows * sizeof(int);
    static constexpr size_t kWorkspaceBytes = 8u << 20;

    int initialize(int table_rows)
    {
        table_rows_ = table_rows;
        CU_CHECK(cuMemAlloc(&workspace_, kWorkspaceBytes));
        CU_CHECK(cuMemAlloc(&table_, (size_t)table_rows * kWidth * sizeof(float)));
        CU_CHECK(cuMemsetD32(table_, 0x3f800000u, (size_t)table_rows * kWidth)); // 1.0f
        CU_CHECK(cuMemAllocHost(&h_indices_, kIndexBytes));
        CU_CHECK(cuCtxSynchronize()); // the table fill ran on the legacy stream
        return 0;
    }

    void terminate()
    {
        if (table_) cuMemFree(table_);
        if (workspace_) cuMemFree(workspace_);
        if (h_indices_) cuMemFree(reinterpret_cast<CUdeviceptr>(h_indices_)); // EXPECT: mismatched_free
        table_ = workspace_ = 0;
        h_indices_ = nullptr;
    }

    // scratch must start zeroed for every enqueue
    void reset_workspace()
    {
        std::memset(reinterpret_cast<void*>(workspace_), 0, kWorkspaceBytes); // EXPECT: host_deref_device_ptr
    }

    int enqueue(int rows, CUstream stream)
    {
        int* idx = static_cast<int*>(h_indices_);
        for (int r = 0; r < rows; ++r) idx[r] = (r * 7919) % table_rows_;
        // workspace layout: [indices | gathered rows]
        CUdeviceptr d_idx = workspace_;
        CUdeviceptr d_out = workspace_ + kIndexBytes;
        CU_CHECK(cuMemcpyHtoDAsync(d_idx, h_indices_, rows * sizeof(int), stream));
        gather_rows<<<rows, 128, 0, stream>>>(reinterpret_cast<const float*>(table_),
                                              reinterpret_cast<const int*>(d_idx),
                                              reinterpret_cast<float*>(d_out), rows, kWidth);
        return cudaGetLastError() == cudaSuccess ? 0 : -1;
    }

private:
    int table_rows_ = 0;
    CUdeviceptr workspace_ = 0;
    CUdeviceptr table_ = 0;
    void* h_indices_ = nullptr;
};

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    GatherPlugin plugin;
    plugin.initialize(50000);
    plugin.reset_workspace();
    if (plugin.enqueue(GatherPlugin::kMaxRows, stream) != 0) fprintf(stderr, "enqueue failed\n");
    CU_CHECK(cuStreamSynchronize(stream));
    plugin.terminate();

    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("gather plugin done\n");
    return 0;
}
