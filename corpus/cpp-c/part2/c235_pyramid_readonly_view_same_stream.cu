// case: a camera pipeline demosaics into a VMM buffer through its writable mapping and hands a read-only second mapping of the same allocation to the pyramid builder, whose kernel and copy are enqueued on the same stream after the writer
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define DRV_OK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s = nullptr; cuGetErrorName(r, &s); \
    std::fprintf(stderr, "%s: %s\n", #x, s ? s : "?"); std::exit(1); } } while (0)

// Writable view for the ISP stage, read-only view for downstream consumers.
class SharedFrame {
public:
    SharedFrame(size_t want) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        size_t g = 0;
        DRV_OK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        bytes_ = (want + g - 1) / g * g;
        DRV_OK(cuMemCreate(&h_, bytes_, &prop, 0));
        DRV_OK(cuMemAddressReserve(&rw_, bytes_, 0, 0, 0));
        DRV_OK(cuMemAddressReserve(&ro_, bytes_, 0, 0, 0));
        DRV_OK(cuMemMap(rw_, bytes_, 0, h_, 0));
        DRV_OK(cuMemMap(ro_, bytes_, 0, h_, 0));
        CUmemAccessDesc d = {};
        d.location = prop.location;
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DRV_OK(cuMemSetAccess(rw_, bytes_, &d, 1));
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
        DRV_OK(cuMemSetAccess(ro_, bytes_, &d, 1));
    }
    ~SharedFrame() {
        cuMemUnmap(ro_, bytes_);
        cuMemUnmap(rw_, bytes_);
        cuMemRelease(h_);
        cuMemAddressFree(ro_, bytes_);
        cuMemAddressFree(rw_, bytes_);
    }
    uchar4* writable() const { return reinterpret_cast<uchar4*>(rw_); }
    const uchar4* readonly() const { return reinterpret_cast<const uchar4*>(ro_); }

private:
    CUmemGenericAllocationHandle h_ = 0;
    CUdeviceptr rw_ = 0, ro_ = 0;
    size_t bytes_ = 0;
};

__global__ void demosaic_rggb(const uint16_t* raw, uchar4* rgb, int w, int h) {
    int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x), y = 2 * (blockIdx.y * blockDim.y + threadIdx.y);
    if (x + 1 >= w || y + 1 >= h) return;
    unsigned char r = raw[y * w + x] >> 4, g = (raw[y * w + x + 1] + raw[(y + 1) * w + x]) >> 5, b = raw[(y + 1) * w + x + 1] >> 4;
    uchar4 px = make_uchar4(r, g, b, 255);
    rgb[y * w + x] = px; rgb[y * w + x + 1] = px; rgb[(y + 1) * w + x] = px; rgb[(y + 1) * w + x + 1] = px;
}

__global__ void downsample2(const uchar4* src, uchar4* dst, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w / 2 || y >= h / 2) return;
    uchar4 a = src[(2 * y) * w + 2 * x], b = src[(2 * y) * w + 2 * x + 1];
    uchar4 c = src[(2 * y + 1) * w + 2 * x], d = src[(2 * y + 1) * w + 2 * x + 1];
    dst[y * (w / 2) + x] = make_uchar4((a.x + b.x + c.x + d.x) / 4, (a.y + b.y + c.y + d.y) / 4, (a.z + b.z + c.z + d.z) / 4, 255);
}

int main() {
    DRV_OK(cuInit(0));
    CUdevice dev; DRV_OK(cuDeviceGet(&dev, 0));
    CUcontext ctx; DRV_OK(cuDevicePrimaryCtxRetain(&ctx, dev)); DRV_OK(cuCtxSetCurrent(ctx));

    const int w = 4032, h = 3024;
    SharedFrame frame((size_t)w * h * sizeof(uchar4));
    uint16_t* d_raw = nullptr;
    uchar4 *d_half = nullptr, *h_thumb = nullptr, *h_rows = nullptr;
    cudaMalloc(&d_raw, (size_t)w * h * sizeof(uint16_t));
    cudaMalloc(&d_half, (size_t)(w / 2) * (h / 2) * sizeof(uchar4));
    cudaMallocHost(&h_thumb, (size_t)(w / 2) * (h / 2) * sizeof(uchar4));
    cudaMallocHost(&h_rows, (size_t)w * 16 * sizeof(uchar4));

    cudaStream_t isp;
    cudaStreamCreateWithFlags(&isp, cudaStreamNonBlocking);
    cudaMemsetAsync(d_raw, 0x40, (size_t)w * h * sizeof(uint16_t), isp);
    demosaic_rggb<<<dim3((w / 2 + 15) / 16, (h / 2 + 15) / 16), dim3(16, 16), 0, isp>>>(d_raw, frame.writable(), w, h);
    // consumers of the read-only view run after the writer completes: same stream
    downsample2<<<dim3((w / 2 + 15) / 16, (h / 2 + 15) / 16), dim3(16, 16), 0, isp>>>(frame.readonly(), d_half, w, h);
    cudaMemcpyAsync(h_thumb, d_half, (size_t)(w / 2) * (h / 2) * sizeof(uchar4), cudaMemcpyDeviceToHost, isp);
    // metering reads a band of full-resolution rows straight from the read-only view
    cudaMemcpyAsync(h_rows, frame.readonly() + (size_t)(h / 2) * w, (size_t)w * 16 * sizeof(uchar4), cudaMemcpyDeviceToHost, isp);
    cudaStreamSynchronize(isp);

    unsigned long luma = 0;
    for (int i = 0; i < w * 16; ++i) luma += h_rows[i].y;
    std::printf("thumbnail[0] = (%u, %u, %u), metering %.1f\n", h_thumb[0].x, h_thumb[0].y, h_thumb[0].z, (double)luma / (w * 16));
    cudaStreamDestroy(isp);
    cudaFreeHost(h_rows);
    cudaFreeHost(h_thumb);
    cudaFree(d_half);
    cudaFree(d_raw);
    return 0;
}
