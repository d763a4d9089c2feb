// case: a renderer downloads tile statistics into pinned memory and calls flush_frame(), an engine library function whose body is not in the program and which is given the stream (it may wait on it), before reading them: an unknown callee, not evidence of a missing wait
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e_)); exit(1); } } while (0)

namespace engine {
void flush_frame(cudaStream_t stream, int frame_index);
}

__global__ void tile_luma(const uchar4* fb, int w, int h, float* tile_mean) {
    int tx = blockIdx.x, ty = blockIdx.y;
    __shared__ float acc[256];
    int lx = threadIdx.x % 16, ly = threadIdx.x / 16;
    int x = tx * 16 + lx, y = ty * 16 + ly;
    uchar4 p = (x < w && y < h) ? fb[y * w + x] : make_uchar4(0, 0, 0, 0);
    acc[threadIdx.x] = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) tile_mean[ty * gridDim.x + tx] = acc[0] / 256.f;
}

int main() {
    const int w = 1920, h = 1088;
    const int tiles_x = w / 16, tiles_y = h / 16, ntiles = tiles_x * tiles_y;
    uchar4 *h_fb, *d_fb;
    float *h_tiles, *d_tiles;
    CUDA_CHECK(cudaMallocHost(&h_fb, (size_t)w * h * sizeof(uchar4)));
    CUDA_CHECK(cudaMallocHost(&h_tiles, ntiles * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_fb, (size_t)w * h * sizeof(uchar4)));
    CUDA_CHECK(cudaMalloc(&d_tiles, ntiles * sizeof(float)));
    for (int i = 0; i < w * h; ++i) h_fb[i] = make_uchar4(i & 255, (i >> 8) & 255, 128, 255);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_fb, h_fb, (size_t)w * h * sizeof(uchar4), cudaMemcpyHostToDevice, s));
    tile_luma<<<dim3(tiles_x, tiles_y), 256, 0, s>>>(d_fb, w, h, d_tiles);
    CUDA_CHECK(cudaMemcpyAsync(h_tiles, d_tiles, ntiles * sizeof(float), cudaMemcpyDeviceToHost, s));
    engine::flush_frame(s, 0);

    float brightest = 0.f;
    for (int t = 0; t < ntiles; ++t) brightest = h_tiles[t] > brightest ? h_tiles[t] : brightest;
    printf("brightest tile mean luma %.1f\n", brightest);

    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_tiles));
    CUDA_CHECK(cudaFree(d_fb));
    CUDA_CHECK(cudaFreeHost(h_tiles));
    CUDA_CHECK(cudaFreeHost(h_fb));
    return 0;
}
