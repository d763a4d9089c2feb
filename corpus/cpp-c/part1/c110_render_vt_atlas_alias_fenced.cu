// case: a virtual-texturing renderer maps its physical page atlas twice (an upload view and a sampling view, access granted on both, the handle released early as CUDA allows); the resolve kernel writes texels through the upload view and executes fence.proxy.alias before reading them back through the sampling view, and teardown unmaps before freeing the ranges.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                   \
    do {                                                                           \
        CUresult r_ = (call);                                                      \
        if (r_ != CUDA_SUCCESS) {                                                  \
            const char* s_ = nullptr;                                              \
            cuGetErrorString(r_, &s_);                                             \
            std::fprintf(stderr, "%s: %s\n", #call, s_ ? s_ : "?");                \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

__global__ void resolve_and_filter(uint32_t* atlas_upload, const uint32_t* atlas_sample,
                                   const uint32_t* decoded, int texels, float* luminance) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= texels) return;
    atlas_upload[i] = decoded[i] | 0xff000000u;                 // page data lands in the atlas
    asm volatile("fence.proxy.alias;" ::: "memory");            // make it visible to the other view
    uint32_t t = atlas_sample[i];
    luminance[i] = (0.2126f * (t & 0xff) + 0.7152f * ((t >> 8) & 0xff) + 0.0722f * ((t >> 16) & 0xff)) / 255.f;
}

class PageAtlas {
public:
    explicit PageAtlas(size_t bytes_wanted) {
        CUmemAllocationProp prop{};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        size_t gran = 0;
        CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        bytes_ = (bytes_wanted + gran - 1) / gran * gran;

        CUmemGenericAllocationHandle pages{};
        CK(cuMemCreate(&pages, bytes_, &prop, 0));
        CK(cuMemAddressReserve(&upload_, bytes_, 0, 0, 0));
        CK(cuMemAddressReserve(&sample_, bytes_, 0, 0, 0));
        CK(cuMemMap(upload_, bytes_, 0, pages, 0));
        CK(cuMemMap(sample_, bytes_, 0, pages, 0));
        CK(cuMemRelease(pages));   // the mappings keep the pages alive

        CUmemAccessDesc rw{};
        rw.location = prop.location;
        rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CK(cuMemSetAccess(upload_, bytes_, &rw, 1));
        CK(cuMemSetAccess(sample_, bytes_, &rw, 1));
    }

    ~PageAtlas() {
        CK(cuCtxSynchronize());
        CK(cuMemUnmap(upload_, bytes_));
        CK(cuMemUnmap(sample_, bytes_));
        CK(cuMemAddressFree(upload_, bytes_));
        CK(cuMemAddressFree(sample_, bytes_));
    }

    uint32_t* upload_view() const { return reinterpret_cast<uint32_t*>(upload_); }
    const uint32_t* sample_view() const { return reinterpret_cast<const uint32_t*>(sample_); }
    int texels() const { return static_cast<int>(bytes_ / sizeof(uint32_t)); }

private:
    CUdeviceptr upload_ = 0, sample_ = 0;
    size_t bytes_ = 0;
};

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));

    {
        PageAtlas atlas(size_t(8) << 20);
        const int n = atlas.texels();
        uint32_t* d_decoded = nullptr;
        float* d_lum = nullptr;
        cudaMalloc(&d_decoded, n * sizeof(uint32_t));
        cudaMalloc(&d_lum, n * sizeof(float));
        cudaMemset(d_decoded, 0x7f, n * sizeof(uint32_t));

        resolve_and_filter<<<(n + 255) / 256, 256>>>(atlas.upload_view(), atlas.sample_view(), d_decoded, n, d_lum);

        std::vector<float> lum(n);
        cudaMemcpy(lum.data(), d_lum, n * sizeof(float), cudaMemcpyDeviceToHost);
        std::printf("texel 0 luminance %.3f\n", lum[0]);

        cudaFree(d_lum);
        cudaFree(d_decoded);
    }
    CK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
