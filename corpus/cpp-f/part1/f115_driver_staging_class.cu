// case: a driver-API staging class uploads a malloc'd 16 MiB weight buffer with cuMemcpyHtoDAsync (pageable source) and its destructor releases the cuMemAlloc'd device buffer with cuMemFreeHost instead of cuMemFree.
// expect: pageable_async_copy=1, mismatched_free=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CU_CALL(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    const char* n_ = nullptr; cuGetErrorName(r_, &n_); \
    fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, n_); exit(1); } } while (0)

__global__ void scale_rows(float* w, int rows, int cols, const float* scales) {
    int r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && c < cols) w[(size_t)r * cols + c] *= scales[r];
}

class WeightStaging {
public:
    WeightStaging(int rows, int cols) : rows_(rows), cols_(cols) {
        bytes_ = (size_t)rows * cols * sizeof(float);
        CU_CALL(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
        CU_CALL(cuMemAlloc(&d_weights_, bytes_));
        h_weights_ = static_cast<float*>(std::malloc(bytes_));
    }

    ~WeightStaging() {
        cuStreamSynchronize(stream_);
        std::free(h_weights_);
        cuMemFreeHost(reinterpret_cast<void*>(d_weights_));
        cuStreamDestroy(stream_);
    }

    float* host() { return h_weights_; }

    void upload() {
        CU_CALL(cuMemcpyHtoDAsync(d_weights_, h_weights_, bytes_, stream_));
    }

    void quantize_scale(const float* d_scales) {
        dim3 grid((cols_ + 255) / 256, rows_);
        scale_rows<<<grid, 256, 0, reinterpret_cast<cudaStream_t>(stream_)>>>(
            reinterpret_cast<float*>(d_weights_), rows_, cols_, d_scales);
    }

    void wait() { CU_CALL(cuStreamSynchronize(stream_)); }

private:
    int rows_, cols_;
    size_t bytes_ = 0;
    CUstream stream_ = nullptr;
    CUdeviceptr d_weights_ = 0;
    float* h_weights_ = nullptr;
};

int main() {
    CU_CALL(cuInit(0));
    CUdevice dev;
    CU_CALL(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CALL(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CALL(cuCtxSetCurrent(ctx));

    const int rows = 4096, cols = 1024;   // 16 MiB of fp32
    CUdeviceptr d_scales;
    CU_CALL(cuMemAlloc(&d_scales, rows * sizeof(float)));
    CU_CALL(cuMemsetD32(d_scales, 0x3f800000u, rows));   // 1.0f
    CU_CALL(cuCtxSynchronize());
    {
        WeightStaging layer(rows, cols);
        for (size_t i = 0; i < (size_t)rows * cols; ++i) layer.host()[i] = 0.001f * (i % 1000);
        layer.upload();
        layer.quantize_scale(reinterpret_cast<const float*>(d_scales));
        layer.wait();
        printf("layer staged and scaled\n");
    }
    CU_CALL(cuMemFree(d_scales));
    CU_CALL(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
