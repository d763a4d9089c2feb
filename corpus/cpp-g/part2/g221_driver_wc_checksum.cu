// case: a driver-API model loader fills a CU_MEMHOSTALLOC_WRITECOMBINED staging buffer, then hashes it on the host for integrity (a read of write-combined memory), and its destructor releases that host buffer with cuMemFree instead of cuMemFreeHost.
// expect: write_combined_host_read=1, mismatched_free=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#define DRV_CHECK(x)                                                                  \
    do {                                                                              \
        CUresult r_ = (x);                                                            \
        if (r_ != CUDA_SUCCESS) throw std::runtime_error(std::string("CUDA: ") + #x); \
    } while (0)

static uint64_t fnv1a(const uint8_t* p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

__global__ void dequantize(const int8_t* q, float* w, size_t n, float scale) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) w[i] = q[i] * scale;
}

class WeightLoader {
public:
    explicit WeightLoader(size_t params) : n_(params) {
        DRV_CHECK(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
        DRV_CHECK(cuMemHostAlloc(&staging_, n_, CU_MEMHOSTALLOC_WRITECOMBINED));
        DRV_CHECK(cuMemAllocHost(&probe_, 16 * sizeof(float)));
        DRV_CHECK(cuMemAlloc(&d_q_, n_));
        DRV_CHECK(cuMemAlloc(&d_w_, n_ * sizeof(float)));
    }
    ~WeightLoader() {
        cuStreamSynchronize(stream_);
        cuMemFree(d_q_);
        cuMemFree(d_w_);
        cuMemFree(reinterpret_cast<CUdeviceptr>(staging_));
        cuMemFreeHost(probe_);
        cuStreamDestroy(stream_);
    }

    uint64_t load(uint32_t seed, float scale) {
        auto* bytes = static_cast<int8_t*>(staging_);
        for (size_t i = 0; i < n_; ++i) bytes[i] = static_cast<int8_t>((seed + i * 2654435761u) >> 24);
        const uint64_t digest = fnv1a(static_cast<const uint8_t*>(staging_), n_);
        DRV_CHECK(cuMemcpyHtoDAsync(d_q_, staging_, n_, stream_));
        dequantize<<<(unsigned)((n_ + 255) / 256), 256, 0, reinterpret_cast<cudaStream_t>(stream_)>>>(
            reinterpret_cast<const int8_t*>(d_q_), reinterpret_cast<float*>(d_w_), n_, scale);
        DRV_CHECK(cuMemcpyDtoHAsync(probe_, d_w_, 16 * sizeof(float), stream_));
        DRV_CHECK(cuStreamSynchronize(stream_));
        return digest;
    }
    float probe(int i) const { return static_cast<const float*>(probe_)[i]; }

private:
    size_t n_;
    CUstream stream_{};
    void* staging_ = nullptr;
    void* probe_ = nullptr;
    CUdeviceptr d_q_ = 0, d_w_ = 0;
};

int main() {
    DRV_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV_CHECK(cuDeviceGet(&dev, 0));
    DRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV_CHECK(cuCtxSetCurrent(ctx));
    {
        WeightLoader loader(64u << 20);
        uint64_t digest = loader.load(7, 0.02f);
        std::printf("digest %016llx, w[0]=%f\n", static_cast<unsigned long long>(digest), loader.probe(0));
    }
    DRV_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
