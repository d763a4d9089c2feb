// case: a CT reconstruction uploader fills a write-combined pinned staging area (cuMemHostAlloc with the header's PROJ_STAGING_FLAGS) and, after the upload, re-reads it on the host to checksum what was sent: a host read of write-combined memory.
// expect: write_combined_host_read=1
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include "staging_config.h"

__global__ void log_transform(float* proj, size_t n, float i0) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) proj[i] = -__logf(fmaxf(proj[i], 1e-6f) / i0);
}

class ProjectionUploader {
public:
    ProjectionUploader() {
        DRV_CALL(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
        DRV_CALL(cuMemHostAlloc(reinterpret_cast<void**>(&staging_), kProjBytes, PROJ_STAGING_FLAGS));
        DRV_CALL(cuMemAlloc(&d_proj_, kProjBytes));
    }
    ~ProjectionUploader() {
        cuStreamSynchronize(stream_);
        cuMemFree(d_proj_);
        cuMemFreeHost(staging_);
        cuStreamDestroy(stream_);
    }

    uint32_t upload(const std::vector<uint16_t>& raw_counts) {
        for (size_t i = 0; i < kProjElems; ++i) staging_[i] = float(raw_counts[i]);
        DRV_CALL(cuMemcpyHtoDAsync(d_proj_, staging_, kProjBytes, stream_));
        log_transform<<<unsigned((kProjElems + 255) / 256), 256, 0, stream_>>>(
            reinterpret_cast<float*>(d_proj_), kProjElems, 65535.0f);
        DRV_CALL(cuStreamSynchronize(stream_));
        return checksum();
    }

private:
    // audit trail: CRC-like fold of the bytes that went to the device
    uint32_t checksum() const {
        uint32_t h = 2166136261u;
        const uint32_t* words = reinterpret_cast<const uint32_t*>(staging_);
        for (size_t i = 0; i < kProjElems; ++i) {
            h ^= words[i]; // EXPECT: write_combined_host_read
            h *= 16777619u;
        }
        return h;
    }

    CUstream stream_ = nullptr;
    float* staging_ = nullptr;
    CUdeviceptr d_proj_ = 0;
};

int main() {
    DRV_CALL(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV_CALL(cuDeviceGet(&dev, 0));
    DRV_CALL(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV_CALL(cuCtxSetCurrent(ctx));
    {
        ProjectionUploader up;
        std::vector<uint16_t> counts(kProjElems);
        for (int view = 0; view < 8; ++view) {
            for (size_t i = 0; i < kProjElems; ++i) counts[i] = uint16_t(1000 + (i * 31 + view) % 60000);
            std::printf("view %d crc %08x\n", view, up.upload(counts));
        }
    }
    DRV_CALL(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
