// case: satellite-image tiler blurs tiles one batch at a time; process_batch allocates a scratch buffer and TRY_CUDA (tile_common.cuh) returns the error status from the middle of the function without freeing it.
// expect: device_memory_leak=1
#include "tile_common.cuh"
#include <cstdlib>

__global__ void box_blur_h(const float* in, float* out, int w, int h, int r)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.f;
    for (int d = -r; d <= r; ++d) acc += in[y * w + min(max(x + d, 0), w - 1)];
    out[y * w + x] = acc / (2 * r + 1);
}

__global__ void box_blur_v(const float* in, float* out, int w, int h, int r)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.f;
    for (int d = -r; d <= r; ++d) acc += in[min(max(y + d, 0), h - 1) * w + x];
    out[y * w + x] = acc / (2 * r + 1);
}

// d_img holds the tile on entry and the blurred tile on return.
static cudaError_t process_batch(float* d_img, const Tile& t, int radius, cudaStream_t s, GpuTimer& timer)
{
    size_t bytes = (size_t)t.w * t.h * sizeof(float);
    float* d_scratch = nullptr;
    TRY_CUDA(cudaMalloc(&d_scratch, bytes));                 // EXPECT: device_memory_leak
    dim3 blk(256), grd((t.w + 255) / 256, t.h);
    timer.start(s);
    box_blur_h<<<grd, blk, 0, s>>>(d_img, d_scratch, t.w, t.h, radius);
    TRY_CUDA(cudaGetLastError());
    box_blur_v<<<grd, blk, 0, s>>>(d_scratch, d_img, t.w, t.h, radius);
    TRY_CUDA(cudaGetLastError());
    float ms = timer.stop(s);
    std::printf("tile %s (%d,%d) %dx%d: %.3f ms\n", t.source.c_str(), t.x0, t.y0, t.w, t.h, ms);
    TRY_CUDA(cudaFree(d_scratch));
    return cudaSuccess;
}

int main(int argc, char** argv)
{
    const int W = argc > 1 ? std::atoi(argv[1]) : 2048;
    const int H = argc > 2 ? std::atoi(argv[2]) : 2048;
    std::vector<Tile> tiles;
    for (int ty = 0; ty < 4; ++ty)
        for (int tx = 0; tx < 4; ++tx)
            tiles.push_back({tx * W, ty * H, W, H, "S2A_T32TQM"});

    std::vector<float> host((size_t)W * H);
    float* d_img;
    TRY_CUDA(cudaMalloc(&d_img, host.size() * sizeof(float)));
    cudaStream_t s;
    TRY_CUDA(cudaStreamCreate(&s));
    GpuTimer timer;
    double total = 0.0;
    for (const Tile& t : tiles) {
        for (size_t i = 0; i < host.size(); ++i) host[i] = (float)((i + t.x0 + t.y0) % 255);
        TRY_CUDA(cudaMemcpy(d_img, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
        TRY_CUDA(process_batch(d_img, t, 4, s, timer));
        TRY_CUDA(cudaMemcpy(host.data(), d_img, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
        total += host[host.size() / 2];
    }
    std::printf("sum of centre pixels: %.2f\n", total);
    TRY_CUDA(cudaStreamDestroy(s));
    TRY_CUDA(cudaFree(d_img));
    return 0;
}
