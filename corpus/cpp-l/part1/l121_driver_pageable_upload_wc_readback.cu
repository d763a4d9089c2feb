// case: a driver-API inference step uploads its input with cuMemcpyHtoDAsync from a new[] (pageable) array and reads the results back into a cuMemHostAlloc buffer allocated write-combined, which the host then scans after the stream synchronize; one slow staged copy and one uncached host read.
// expect: pageable_async_copy=1, write_combined_host_read=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(expr)                                                           \
    do {                                                                         \
        CUresult r_ = (expr);                                                    \
        if (r_ != CUDA_SUCCESS) {                                                \
            const char* msg_ = nullptr;                                          \
            cuGetErrorString(r_, &msg_);                                         \
            fprintf(stderr, "%s failed: %s\n", #expr, msg_ ? msg_ : "?");        \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)

constexpr size_t kN = size_t(1) << 24;

__global__ void relu6(const float* in, float* out, size_t n) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = fminf(fmaxf(in[i], 0.f), 6.f);
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    const size_t bytes = kN * sizeof(float);
    float* input = new float[kN];
    for (size_t i = 0; i < kN; ++i) input[i] = float(int(i % 1601) - 800) / 100.f;

    float* result = nullptr;
    CU_CHECK(cuMemHostAlloc(reinterpret_cast<void**>(&result), bytes, CU_MEMHOSTALLOC_WRITECOMBINED));

    CUdeviceptr d_in = 0, d_out = 0;
    CU_CHECK(cuMemAlloc(&d_in, bytes));
    CU_CHECK(cuMemAlloc(&d_out, bytes));

    CU_CHECK(cuMemcpyHtoDAsync(d_in, input, bytes, stream)); // EXPECT: pageable_async_copy
    relu6<<<unsigned((kN + 255) / 256), 256, 0, stream>>>(reinterpret_cast<const float*>(d_in),
                                                        reinterpret_cast<float*>(d_out), kN);
    CU_CHECK(cuMemcpyDtoHAsync(result, d_out, bytes, stream));
    CU_CHECK(cuStreamSynchronize(stream));

    size_t saturated = 0;
    for (size_t i = 0; i < kN; ++i) {
        if (result[i] == 6.f) ++saturated; // EXPECT: write_combined_host_read
    }
    printf("%zu of %zu activations saturated\n", saturated, kN);

    CU_CHECK(cuMemFree(d_in));
    CU_CHECK(cuMemFree(d_out));
    CU_CHECK(cuMemFreeHost(result));
    delete[] input;
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
