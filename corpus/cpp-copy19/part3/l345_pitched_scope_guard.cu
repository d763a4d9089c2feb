// case: a bilinear image resize allocates pitched source and destination images and registers both with a small scope-guard struct whose destructor frees them, so the early returns release them too
// expect: none
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

struct PitchedGuard {
    void* ptrs[4] = {nullptr, nullptr, nullptr, nullptr};
    int count = 0;
    void* track(void* p) {
        ptrs[count++] = p;
        return p;
    }
    ~PitchedGuard() {
        for (int i = 0; i < count; ++i) cudaFree(ptrs[i]);
    }
};

__global__ void resize_bilinear(const float* src, size_t sp, int sw, int sh, float* dst,
                                size_t dp, int dw, int dh) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dw || y >= dh) return;
    float fx = (x + 0.5f) * sw / dw - 0.5f, fy = (y + 0.5f) * sh / dh - 0.5f;
    int x0 = max(0, min(sw - 2, (int)fx)), y0 = max(0, min(sh - 2, (int)fy));
    float ax = fminf(fmaxf(fx - x0, 0.f), 1.f), ay = fminf(fmaxf(fy - y0, 0.f), 1.f);
    const float* r0 = (const float*)((const char*)src + y0 * sp);
    const float* r1 = (const float*)((const char*)src + (y0 + 1) * sp);
    float top = r0[x0] * (1 - ax) + r0[x0 + 1] * ax;
    float bot = r1[x0] * (1 - ax) + r1[x0 + 1] * ax;
    ((float*)((char*)dst + y * dp))[x] = top * (1 - ay) + bot * ay;
}

bool resize(const std::vector<float>& in, int sw, int sh, std::vector<float>& out, int dw, int dh) {
    PitchedGuard guard;
    float *d_src = nullptr, *d_dst = nullptr;
    size_t sp = 0, dp = 0;
    if (cudaMallocPitch((void**)&d_src, &sp, sw * sizeof(float), sh) != cudaSuccess) return false;
    guard.track(d_src);
    if (cudaMallocPitch((void**)&d_dst, &dp, dw * sizeof(float), dh) != cudaSuccess) return false;
    guard.track(d_dst);

    if (cudaMemcpy2D(d_src, sp, in.data(), sw * sizeof(float), sw * sizeof(float), sh,
                     cudaMemcpyHostToDevice) != cudaSuccess)
        return false;
    dim3 block(32, 8), grid((dw + 31) / 32, (dh + 7) / 8);
    resize_bilinear<<<grid, block>>>(d_src, sp, sw, sh, d_dst, dp, dw, dh);
    out.resize((size_t)dw * dh);
    return cudaMemcpy2D(out.data(), dw * sizeof(float), d_dst, dp, dw * sizeof(float), dh,
                        cudaMemcpyDeviceToHost) == cudaSuccess;
}

int main() {
    const int sw = 1024, sh = 768, dw = 1600, dh = 1200;
    std::vector<float> in((size_t)sw * sh), out;
    for (int y = 0; y < sh; ++y)
        for (int x = 0; x < sw; ++x) in[(size_t)y * sw + x] = (float)x / sw;
    if (!resize(in, sw, sh, out, dw, dh)) {
        fprintf(stderr, "resize failed\n");
        return 1;
    }
    printf("out[0]=%f out[mid]=%f\n", out[0], out[(size_t)(dh / 2) * dw + dw / 2]);
    return 0;
}
