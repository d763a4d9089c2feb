// case: Parboil-style 2D stencil whose two grids live in a VMM arena (header): every chunk gets cuMemSetAccess right after cuMemMap, the handle is released early (allowed while mapped), the stream is synchronized before the arena's destructor unmaps each chunk and only then frees the range: correct.
// expect: none
#include "vmm_arena.cuh"
#include <cuda_runtime.h>
#include <utility>

__global__ void init_grid(float* g, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) g[y * w + x] = (x == 0 || y == 0) ? 100.f : 0.f;
}

__global__ void jacobi5(const float* in, float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { out[y * w + x] = in[y * w + x]; return; }
    out[y * w + x] = 0.25f * (in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x]);
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    const int w = 4096, h = 4096;
    const size_t bytes = (size_t)w * h * sizeof(float);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    float* h_out = nullptr;
    cudaMallocHost(&h_out, bytes);

    {
        auto arena = VmmArena::create(0, size_t(1) << 30);
        float* cur = reinterpret_cast<float*>(arena->grow(bytes));
        float* nxt = reinterpret_cast<float*>(arena->grow(bytes));

        dim3 block(32, 8), grid(w / 32, h / 8);
        init_grid<<<grid, block, 0, s>>>(cur, w, h);
        init_grid<<<grid, block, 0, s>>>(nxt, w, h);
        for (int it = 0; it < 100; ++it) {
            jacobi5<<<grid, block, 0, s>>>(cur, nxt, w, h);
            std::swap(cur, nxt);
        }
        cudaMemcpyAsync(h_out, cur, bytes, cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s); // before the arena unmaps what the stream used

        double heat = 0.0;
        for (size_t i = 0; i < (size_t)w * h; ++i) heat += h_out[i];
        printf("stencil: %zu bytes mapped, total heat %.1f\n", arena->mapped(), heat);
    } // ~VmmArena

    cudaFreeHost(h_out);
    cudaStreamDestroy(s);
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
