// case: a ray-tracing tile scheduler overlaps CPU work with a kernel and pinned readback by polling cudaStreamQuery (and cudaEventQuery for the second tile) until they report completion, and reads the tiles only once the poll returned cudaSuccess.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <thread>

#define RT_CHECK(x)                                                                 \
    do {                                                                            \
        cudaError_t e_ = (x);                                                       \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));    \
    } while (0)

__global__ void shade_tile(float3* rgb, int w, int h, int tile) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float u = (float)x / w, v = (float)y / h;
    rgb[y * w + x] = make_float3(u, v, 0.1f * tile);
}

static void wait_polling(cudaStream_t s, int& cpu_jobs) {
    for (;;) {
        cudaError_t st = cudaStreamQuery(s);
        if (st == cudaSuccess) return;
        if (st != cudaErrorNotReady) throw std::runtime_error(cudaGetErrorString(st));
        ++cpu_jobs;  // build the next tile's BVH slice meanwhile
        std::this_thread::yield();
    }
}

int main() {
    const int w = 1024, h = 1024;
    const size_t bytes = sizeof(float3) * w * h;
    cudaStream_t stream;
    RT_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t tile_done;
    RT_CHECK(cudaEventCreateWithFlags(&tile_done, cudaEventDisableTiming));

    float3 *d_tile = nullptr, *h_tile = nullptr, *h_tile2 = nullptr;
    RT_CHECK(cudaMalloc(&d_tile, bytes));
    RT_CHECK(cudaMallocHost(&h_tile, bytes));
    RT_CHECK(cudaMallocHost(&h_tile2, bytes));

    int cpu_jobs = 0;
    dim3 grid((w + 127) / 128, h);
    shade_tile<<<grid, 128, 0, stream>>>(d_tile, w, h, 0);
    RT_CHECK(cudaMemcpyAsync(h_tile, d_tile, bytes, cudaMemcpyDeviceToHost, stream));
    wait_polling(stream, cpu_jobs);
    float lum0 = 0.f;
    for (int i = 0; i < w * h; i += 97) lum0 += h_tile[i].x + h_tile[i].y + h_tile[i].z;

    shade_tile<<<grid, 128, 0, stream>>>(d_tile, w, h, 1);
    RT_CHECK(cudaMemcpyAsync(h_tile2, d_tile, bytes, cudaMemcpyDeviceToHost, stream));
    RT_CHECK(cudaEventRecord(tile_done, stream));
    cudaError_t q;
    while ((q = cudaEventQuery(tile_done)) == cudaErrorNotReady) ++cpu_jobs;
    RT_CHECK(q);
    float lum1 = 0.f;
    for (int i = 0; i < w * h; i += 97) lum1 += h_tile2[i].x + h_tile2[i].y + h_tile2[i].z;

    std::printf("tiles %.2f %.2f, %d cpu jobs overlapped\n", lum0, lum1, cpu_jobs);
    RT_CHECK(cudaFree(d_tile));
    RT_CHECK(cudaFreeHost(h_tile));
    RT_CHECK(cudaFreeHost(h_tile2));
    RT_CHECK(cudaEventDestroy(tile_done));
    RT_CHECK(cudaStreamDestroy(stream));
    return 0;
}
