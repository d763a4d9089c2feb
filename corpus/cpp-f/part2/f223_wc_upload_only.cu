// case: A video-frame colour-conversion loop writes each NV12 frame into a write-combined pinned buffer (write-only, for the upload) and downloads RGBA into an ordinary cudaMallocHost buffer, which is the only one the host reads; the stream is synchronized before each refill.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>

#define VCHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "video: %s -> %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void nv12_to_rgba(const uint8_t* __restrict__ nv12, uchar4* __restrict__ rgba, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float Y = nv12[y * w + x];
    const uint8_t* uv = nv12 + w * h + (y / 2) * w + (x & ~1);
    float U = uv[0] - 128.f, V = uv[1] - 128.f;
    auto clamp8 = [](float v) { return (unsigned char)fminf(fmaxf(v, 0.f), 255.f); };
    rgba[y * w + x] = make_uchar4(clamp8(Y + 1.402f * V), clamp8(Y - 0.344f * U - 0.714f * V),
                                  clamp8(Y + 1.772f * U), 255);
}

static void synth_frame(uint8_t* dst, int w, int h, int t) {
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) dst[y * w + x] = uint8_t((x + y + t) & 0xff);
    std::memset(dst + w * h, 128, size_t(w) * h / 2);
}

int main() {
    const int w = 3840, h = 2160, frames = 120;
    const size_t nv12_bytes = size_t(w) * h * 3 / 2, rgba_bytes = size_t(w) * h * sizeof(uchar4);

    uint8_t* h_nv12;    // write-combined: the CPU only ever writes it
    uchar4* h_rgba;     // cacheable pinned memory for the readback
    VCHECK(cudaHostAlloc(&h_nv12, nv12_bytes, cudaHostAllocWriteCombined));
    VCHECK(cudaHostAlloc(&h_rgba, rgba_bytes, cudaHostAllocDefault));

    uint8_t* d_nv12;
    uchar4* d_rgba;
    VCHECK(cudaMalloc(&d_nv12, nv12_bytes));
    VCHECK(cudaMalloc(&d_rgba, rgba_bytes));
    cudaStream_t s;
    VCHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    uint64_t luma_sum = 0;
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    for (int f = 0; f < frames; ++f) {
        synth_frame(h_nv12, w, h, f);
        VCHECK(cudaMemcpyAsync(d_nv12, h_nv12, nv12_bytes, cudaMemcpyHostToDevice, s));
        nv12_to_rgba<<<grid, block, 0, s>>>(d_nv12, d_rgba, w, h);
        VCHECK(cudaMemcpyAsync(h_rgba, d_rgba, rgba_bytes, cudaMemcpyDeviceToHost, s));
        VCHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < w * h; i += 997) luma_sum += h_rgba[i].x + h_rgba[i].y + h_rgba[i].z;
    }
    printf("sampled colour sum over %d frames: %llu\n", frames, (unsigned long long)luma_sum);

    VCHECK(cudaStreamDestroy(s));
    cudaFree(d_nv12); cudaFree(d_rgba);
    cudaFreeHost(h_nv12); cudaFreeHost(h_rgba);
    return 0;
}
