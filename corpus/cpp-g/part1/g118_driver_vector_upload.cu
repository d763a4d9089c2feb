// case: Driver-API upload of a std::vector with cuMemcpyHtoDAsync (pageable source, 16 MiB) while the readback goes to cuMemAllocHost memory; the cleanup macro SAFE_FREE_HOST meant for pinned buffers is also applied to the cuMemAlloc'd device buffer.
// expect: pageable_async_copy=1, mismatched_free=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define DRIVER_CALL(x) do { CUresult res_ = (x); if (res_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s failed with %d\n", #x, (int)res_); return 1; } } while (0)
#define SAFE_FREE_HOST(p) do { if (p) { cuMemFreeHost((void*)(p)); (p) = 0; } } while (0)
#define SAFE_FREE_DEV(p)  do { if (p) { cuMemFree(p); (p) = 0; } } while (0)

static const size_t kCount = size_t(1) << 22;

__global__ void normalize(float* x, size_t n, float inv_norm) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) x[i] *= inv_norm;
}

int main() {
    DRIVER_CALL(cuInit(0));
    CUdevice dev; DRIVER_CALL(cuDeviceGet(&dev, 0));
    CUcontext ctx; DRIVER_CALL(cuCtxCreate(&ctx, 0, dev));
    CUstream stream; DRIVER_CALL(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    std::vector<float> samples(kCount);
    for (size_t i = 0; i < kCount; ++i) samples[i] = float(i % 4096);

    CUdeviceptr d_samples = 0;
    float* h_result = nullptr;
    const size_t bytes = kCount * sizeof(float);
    DRIVER_CALL(cuMemAlloc(&d_samples, bytes));
    DRIVER_CALL(cuMemAllocHost((void**)&h_result, bytes));

    DRIVER_CALL(cuMemcpyHtoDAsync(d_samples, samples.data(), bytes, stream));
    normalize<<<unsigned((kCount + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
        reinterpret_cast<float*>(d_samples), kCount, 1.0f / 4096.0f);
    DRIVER_CALL(cuMemcpyDtoHAsync(h_result, d_samples, bytes, stream));
    DRIVER_CALL(cuStreamSynchronize(stream));

    double mean = 0.0;
    for (size_t i = 0; i < kCount; ++i) mean += h_result[i];
    std::printf("mean %.5f\n", mean / kCount);

    SAFE_FREE_HOST(h_result);
    SAFE_FREE_HOST(d_samples);
    DRIVER_CALL(cuStreamDestroy(stream));
    DRIVER_CALL(cuCtxDestroy(ctx));
    return 0;
}
