// case: video colour-conversion pipeline uploads each decoded frame from a std::vector and downloads the converted frame into another std::vector with cudaMemcpyAsync: both copies of a runtime-sized frame are from pageable memory.
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CUDA_OK(x) do { cudaError_t st = (x); if (st != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(st)); std::exit(2); } } while (0)

enum class PixelFormat { NV12, YUV444 };

struct FrameGeometry {
    int width, height;
    size_t luma_bytes() const { return (size_t)width * height; }
    size_t nv12_bytes() const { return luma_bytes() * 3 / 2; }
    size_t rgba_bytes() const { return luma_bytes() * 4; }
};

__device__ __forceinline__ uint8_t clamp8(float v) { return (uint8_t)fminf(fmaxf(v, 0.f), 255.f); }

__global__ void nv12_to_rgba(const uint8_t* __restrict__ nv12, uchar4* __restrict__ rgba,
                             int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float Y = nv12[y * w + x];
    const uint8_t* uv = nv12 + (size_t)w * h + (y / 2) * w + (x & ~1);
    float U = uv[0] - 128.f, V = uv[1] - 128.f;
    rgba[y * w + x] = make_uchar4(clamp8(Y + 1.402f * V), clamp8(Y - 0.344f * U - 0.714f * V),
                                  clamp8(Y + 1.772f * U), 255);
}

static void fake_decode(std::vector<uint8_t>& dst, int frame)
{
    for (size_t i = 0; i < dst.size(); ++i) dst[i] = (uint8_t)((i * 7 + frame) & 0xFF);
}

int main(int argc, char** argv)
{
    FrameGeometry g{argc > 1 ? atoi(argv[1]) : 1920, argc > 2 ? atoi(argv[2]) : 1080};
    int frames = argc > 3 ? atoi(argv[3]) : 120;
    std::string out_name = "out.rgba";

    std::vector<uint8_t> decoded(g.nv12_bytes());
    std::vector<uchar4> converted(g.luma_bytes());

    uint8_t* d_nv12;
    uchar4* d_rgba;
    CUDA_OK(cudaMalloc(&d_nv12, g.nv12_bytes()));
    CUDA_OK(cudaMalloc(&d_rgba, g.rgba_bytes()));
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));

    dim3 blk(32, 8), grd((g.width + 31) / 32, (g.height + 7) / 8);
    uint64_t checksum = 0;
    FILE* out = fopen(out_name.c_str(), "wb");
    for (int f = 0; f < frames; ++f) {
        fake_decode(decoded, f);
        CUDA_OK(cudaMemcpyAsync(d_nv12, decoded.data(), g.nv12_bytes(),   // EXPECT: pageable_async_copy
                                cudaMemcpyHostToDevice, stream));
        nv12_to_rgba<<<grd, blk, 0, stream>>>(d_nv12, d_rgba, g.width, g.height);
        CUDA_OK(cudaMemcpyAsync(converted.data(), d_rgba, g.rgba_bytes(),  // EXPECT: pageable_async_copy
                                cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        checksum += converted[(size_t)f % converted.size()].x;
        if (out) fwrite(converted.data(), 1, g.rgba_bytes(), out);
    }
    if (out) fclose(out);
    printf("%d frames, checksum %llu\n", frames, (unsigned long long)checksum);

    CUDA_OK(cudaStreamDestroy(stream));
    CUDA_OK(cudaFree(d_rgba));
    CUDA_OK(cudaFree(d_nv12));
    return 0;
}
