// case: a driver-API staging pool keeps a cuMemAlloc device buffer and a cuMemAllocHost pinned buffer in a struct; its destroy function releases the pinned buffer with cuMemFree (device free) instead of cuMemFreeHost.
// expect: mismatched_free=1
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_ ? s_ : "?"); exit(1); } } while (0)

struct StagingPool {
    CUdeviceptr dev;
    float* pinned;
    size_t bytes;
    CUstream stream;
};

static void pool_create(StagingPool* p, size_t bytes) {
    p->bytes = bytes;
    CU_CHECK(cuStreamCreate(&p->stream, CU_STREAM_NON_BLOCKING));
    CU_CHECK(cuMemAlloc(&p->dev, bytes));
    CU_CHECK(cuMemAllocHost((void**)&p->pinned, bytes));
}

static void pool_roundtrip(StagingPool* p) {
    size_t n = p->bytes / sizeof(float);
    for (size_t i = 0; i < n; ++i) p->pinned[i] = (float)i;
    CU_CHECK(cuMemcpyHtoDAsync(p->dev, p->pinned, p->bytes, p->stream));
    CU_CHECK(cuMemsetD32Async(p->dev, 0, n / 2, p->stream));
    CU_CHECK(cuMemcpyDtoHAsync(p->pinned, p->dev, p->bytes, p->stream));
    CU_CHECK(cuStreamSynchronize(p->stream));
}

static void pool_destroy(StagingPool* p) {
    cuStreamSynchronize(p->stream);
    cuMemFree(p->dev);
    cuMemFree((CUdeviceptr)p->pinned);  // EXPECT: mismatched_free
    cuStreamDestroy(p->stream);
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    StagingPool pool;
    pool_create(&pool, 8u << 20);
    pool_roundtrip(&pool);
    printf("pinned[0] = %f, pinned[last] = %f\n", pool.pinned[0],
           pool.pinned[pool.bytes / sizeof(float) - 1]);
    pool_destroy(&pool);

    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
