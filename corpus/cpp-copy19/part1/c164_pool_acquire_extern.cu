// case: ray-tracer framebuffer pass whose device buffers come from pool_acquire(void **, size_t), a memory-pool function declared here but defined in another library: the allocation is an unknown, not a null pointer
// expect: none
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

extern "C" int pool_acquire(void **ptr, size_t bytes);
extern "C" void pool_release(void *ptr);

constexpr int W = 1280;
constexpr int H = 720;

__global__ void shade(const float3 *normals, uchar4 *fb, float3 light)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float3 n = normals[y * W + x];
    float l = fmaxf(0.f, n.x * light.x + n.y * light.y + n.z * light.z);
    unsigned char c = (unsigned char)(255.f * l);
    fb[y * W + x] = make_uchar4(c, c, c, 255);
}

int main()
{
    float3 *h_normals = new float3[W * H];
    uchar4 *h_fb = new uchar4[W * H];
    for (int i = 0; i < W * H; ++i) {
        float u = float(i % W) / W - 0.5f, v = float(i / W) / H - 0.5f;
        float z = sqrtf(fmaxf(0.f, 1.f - u * u - v * v));
        h_normals[i] = make_float3(u, v, z);
    }

    float3 *d_normals = nullptr;
    uchar4 *d_fb = nullptr;
    if (pool_acquire(reinterpret_cast<void **>(&d_normals), W * H * sizeof(float3)) != 0 ||
        pool_acquire(reinterpret_cast<void **>(&d_fb), W * H * sizeof(uchar4)) != 0) {
        std::fprintf(stderr, "pool exhausted\n");
        std::exit(EXIT_FAILURE);
    }

    cudaMemcpy(d_normals, h_normals, W * H * sizeof(float3), cudaMemcpyHostToDevice);
    dim3 block(16, 16), grid((W + 15) / 16, (H + 15) / 16);
    shade<<<grid, block>>>(d_normals, d_fb, make_float3(0.3f, 0.5f, 0.81f));
    cudaMemcpy(h_fb, d_fb, W * H * sizeof(uchar4), cudaMemcpyDeviceToHost);

    std::printf("center pixel %u\n", h_fb[(H / 2) * W + W / 2].x);

    pool_release(d_normals);
    pool_release(d_fb);
    delete[] h_normals;
    delete[] h_fb;
    return 0;
}
