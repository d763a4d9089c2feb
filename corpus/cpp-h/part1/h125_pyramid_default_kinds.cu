// case: Image pyramid builder copies with cudaMemcpyDefault in both directions (directions taken from the pointers), uses DeviceToDevice into a managed level and a 2D HostToDevice copy from pinned memory; every kind agrees with where the memory lives and all host reads follow a synchronize.
// expect: none
#include <cuda_runtime.h>
#include <vector>
#include <cstdio>
#include <cstdint>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

__global__ void downsample2x(const uint8_t* src, size_t src_pitch, uint8_t* dst, int dw, int dh)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dw || y >= dh) return;
    const uint8_t* r0 = src + (size_t)(2 * y) * src_pitch;
    const uint8_t* r1 = r0 + src_pitch;
    dst[y * dw + x] = (uint8_t)((r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1] + 2) / 4);
}

int main()
{
    const int w = 4096, h = 4096, dw = w / 2, dh = h / 2;
    uint8_t* h_img;
    CHECK(cudaMallocHost(&h_img, (size_t)w * h));
    for (size_t i = 0; i < (size_t)w * h; ++i) h_img[i] = (uint8_t)(i ^ (i >> 12));

    uint8_t* d_img; size_t pitch;
    uint8_t* d_half;
    uint8_t* level1;                         // managed copy of level 1 for the CPU tracker
    CHECK(cudaMallocPitch(&d_img, &pitch, w, h));
    CHECK(cudaMalloc(&d_half, (size_t)dw * dh));
    CHECK(cudaMallocManaged(&level1, (size_t)dw * dh));

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpy2DAsync(d_img, pitch, h_img, w, w, h, cudaMemcpyHostToDevice, s));
    dim3 blk(32, 8), grd((dw + 31) / 32, (dh + 7) / 8);
    downsample2x<<<grd, blk, 0, s>>>(d_img, pitch, d_half, dw, dh);
    CHECK(cudaMemcpyAsync(level1, d_half, (size_t)dw * dh, cudaMemcpyDeviceToDevice, s));

    std::vector<uint8_t> preview((size_t)dw * dh);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(preview.data(), d_half, preview.size(), cudaMemcpyDefault));

    // Re-upload an edited preview: Default again, the runtime sees host -> device.
    for (size_t i = 0; i < preview.size(); i += 97) preview[i] = 255;
    CHECK(cudaMemcpy(d_half, preview.data(), preview.size(), cudaMemcpyDefault));

    long long diff = 0;
    for (size_t i = 0; i < preview.size(); ++i) diff += (int)preview[i] - (int)level1[i];
    std::printf("pitch %zu, edit delta %lld, corner pixel %u\n", pitch, diff, (unsigned)h_img[0]);

    CHECK(cudaStreamDestroy(s));
    cudaFree(level1); cudaFree(d_half); cudaFree(d_img);
    cudaFreeHost(h_img);
    return 0;
}
