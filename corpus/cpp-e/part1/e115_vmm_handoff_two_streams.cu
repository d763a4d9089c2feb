// case: A video decoder hands frames to a post-processing stream zero-copy by mapping one VMM allocation at two addresses; the decode kernel writes through one view on one stream and the tone-map kernel reads the other view on a second stream with no event between them.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s failed (%d)\n", #x, (int)r_); std::exit(1); } } while (0)
#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kW = 1920, kH = 1088;

__global__ void decode_luma(unsigned char* frame, int w, int h, int frame_no)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) frame[y * w + x] = (unsigned char)((x + y + frame_no) & 0xff);
}

__global__ void tone_map(const unsigned char* frame, float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) out[y * w + x] = powf(frame[y * w + x] / 255.0f, 2.2f);
}

struct AliasedSurface {
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr decode_view = 0, post_view = 0;
    size_t bytes = 0;
};

static AliasedSurface make_surface(size_t min_bytes)
{
    AliasedSurface s;
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    s.bytes = (min_bytes + gran - 1) / gran * gran;
    CU_CHECK(cuMemCreate(&s.handle, s.bytes, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&s.decode_view, s.bytes, 0, 0, 0));
    CU_CHECK(cuMemAddressReserve(&s.post_view, s.bytes, 0, 0, 0));
    CU_CHECK(cuMemMap(s.decode_view, s.bytes, 0, s.handle, 0));
    CU_CHECK(cuMemMap(s.post_view, s.bytes, 0, s.handle, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(s.decode_view, s.bytes, &acc, 1));
    CU_CHECK(cuMemSetAccess(s.post_view, s.bytes, &acc, 1));
    return s;
}

static void destroy_surface(AliasedSurface& s)
{
    CU_CHECK(cuMemUnmap(s.post_view, s.bytes));
    CU_CHECK(cuMemUnmap(s.decode_view, s.bytes));
    CU_CHECK(cuMemRelease(s.handle));
    CU_CHECK(cuMemAddressFree(s.post_view, s.bytes));
    CU_CHECK(cuMemAddressFree(s.decode_view, s.bytes));
}

int main()
{
    CUDA_CHECK(cudaFree(0)); // primary context current for the driver calls
    AliasedSurface surf = make_surface((size_t)kW * kH);

    cudaStream_t decode_stream, post_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&decode_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&post_stream, cudaStreamNonBlocking));
    float *d_linear = nullptr, *h_linear = nullptr;
    CUDA_CHECK(cudaMalloc(&d_linear, (size_t)kW * kH * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_linear, (size_t)kW * kH * sizeof(float)));

    dim3 block(256), grid((kW + 255) / 256, kH);
    decode_luma<<<grid, block, 0, decode_stream>>>((unsigned char*)surf.decode_view, kW, kH, 7);
    CUDA_CHECK(cudaGetLastError());
    tone_map<<<grid, block, 0, post_stream>>>((const unsigned char*)surf.post_view, d_linear, kW, kH); // EXPECT: unfenced_vmm_alias
    CUDA_CHECK(cudaMemcpyAsync(h_linear, d_linear, (size_t)kW * kH * sizeof(float), cudaMemcpyDeviceToHost, post_stream));
    CUDA_CHECK(cudaStreamSynchronize(post_stream));
    CUDA_CHECK(cudaStreamSynchronize(decode_stream));
    std::printf("pixel(100,100) = %f\n", h_linear[100 * kW + 100]);

    CUDA_CHECK(cudaFreeHost(h_linear));
    CUDA_CHECK(cudaFree(d_linear));
    destroy_surface(surf);
    CUDA_CHECK(cudaStreamDestroy(post_stream));
    CUDA_CHECK(cudaStreamDestroy(decode_stream));
    return 0;
}
