// case: a video transcoder's VMM frame pool launches the deblocking kernel on the last chunk and then shrinks the pool with cuMemUnmap without synchronizing; cuMemUnmap does not wait for the device, so the kernel may still be using the unmapped range.
// expect: missing_sync=1
#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s:%d %s = %d\n", __FILE__, __LINE__, #x, int(r_)); std::exit(1); } } while (0)

constexpr int kW = 3840, kH = 2160;

__global__ void deblock(uint8_t* luma, int w, int h, int strength) {
    int x = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
    int y = blockIdx.y;
    if (x <= 0 || x >= w || y >= h) return;
    uint8_t* row = luma + size_t(y) * w;
    int d = (int(row[x]) - int(row[x - 1])) / 2;
    if (d > strength) d = strength;
    if (d < -strength) d = -strength;
    row[x - 1] = uint8_t(row[x - 1] + d);
    row[x] = uint8_t(row[x] - d);
}

class FramePool {
public:
    FramePool(CUstream s, int frames) : stream_(s), frames_(frames) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = 0;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        frame_bytes_ = (size_t(kW) * kH + gran - 1) / gran * gran;
        CU_CHECK(cuMemAddressReserve(&base_, frame_bytes_ * frames_, 0, 0, 0));
        CUmemAccessDesc acc = {};
        acc.location = prop_.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        for (int i = 0; i < frames_; ++i) {
            CU_CHECK(cuMemCreate(&handles_[i], frame_bytes_, &prop_, 0));
            CU_CHECK(cuMemMap(base_ + i * frame_bytes_, frame_bytes_, 0, handles_[i], 0));
            CU_CHECK(cuMemSetAccess(base_ + i * frame_bytes_, frame_bytes_, &acc, 1));
        }
    }
    ~FramePool() {
        cuStreamSynchronize(stream_);
        for (int i = 0; i < frames_; ++i) {
            cuMemUnmap(base_ + i * frame_bytes_, frame_bytes_);
            cuMemRelease(handles_[i]);
        }
        cuMemAddressFree(base_, frame_bytes_ * capacity_);
    }

    uint8_t* frame(int i) const { return reinterpret_cast<uint8_t*>(base_ + i * frame_bytes_); }
    int frames() const { return frames_; }

    // drop the newest frame slot to give memory back under pressure
    void shrink_one() {
        --frames_;
        CUdeviceptr last = base_ + frames_ * frame_bytes_;
        CU_CHECK(cuMemUnmap(last, frame_bytes_)); // EXPECT: missing_sync
        CU_CHECK(cuMemRelease(handles_[frames_]));
    }

private:
    static constexpr int capacity_ = 4;
    CUstream stream_;
    int frames_;
    CUmemAllocationProp prop_ = {};
    CUdeviceptr base_ = 0;
    size_t frame_bytes_ = 0;
    CUmemGenericAllocationHandle handles_[capacity_] = {};
};

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    {
        FramePool pool(stream, 4);
        CU_CHECK(cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(pool.frame(0)), 128, size_t(kW) * kH, stream));
        uint8_t* newest = pool.frame(3);
        deblock<<<dim3((kW / 8 + 127) / 128, kH), 128, 0, stream>>>(newest, kW, kH, 4);
        pool.shrink_one();   // memory pressure callback fired
        deblock<<<dim3((kW / 8 + 127) / 128, kH), 128, 0, stream>>>(pool.frame(0), kW, kH, 4);
        CU_CHECK(cuStreamSynchronize(stream));
    }
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
