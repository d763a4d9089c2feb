// case: a ray-marching renderer has a TRACE_DEVICE_VALUES debug arm that dereferences the device framebuffer and reads the pinned readback before syncing, but nothing defines TRACE_DEVICE_VALUES, and the built #else arm synchronizes first.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

#define RENDER_WIDTH 1280
#define RENDER_HEIGHT 720
// #define TRACE_DEVICE_VALUES   // enable for pixel tracing

__device__ float sdf_sphere(float3 p) { return sqrtf(p.x * p.x + p.y * p.y + (p.z - 3.f) * (p.z - 3.f)) - 1.f; }

__global__ void raymarch(uchar4* fb, int w, int h, float time) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float3 d = make_float3((x - w * 0.5f) / h, (y - h * 0.5f) / h, 1.f);
    float t = 0.f;
    for (int i = 0; i < 96; ++i) {
        float3 p = make_float3(d.x * t + sinf(time) * 0.2f, d.y * t, d.z * t);
        float dist = sdf_sphere(p);
        if (dist < 1e-3f) break;
        t += dist;
    }
    unsigned char v = (unsigned char)fminf(255.f, 255.f / (1.f + t));
    fb[y * w + x] = make_uchar4(v, v, v, 255);
}

int main() {
    const int w = RENDER_WIDTH, h = RENDER_HEIGHT;
    const size_t bytes = (size_t)w * h * sizeof(uchar4);
    uchar4 *d_fb = nullptr, *h_fb = nullptr;
    CUDA_CHECK(cudaMalloc(&d_fb, bytes));
    CUDA_CHECK(cudaMallocHost(&h_fb, bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    unsigned long long brightness = 0;
    for (int frame = 0; frame < 120; ++frame) {
        raymarch<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16), 0, s>>>(d_fb, w, h, frame / 60.f);
        CUDA_CHECK(cudaMemcpyAsync(h_fb, d_fb, bytes, cudaMemcpyDeviceToHost, s));
#ifdef TRACE_DEVICE_VALUES
        printf("frame %d centre (device) = %u\n", frame, d_fb[(h / 2) * w + w / 2].x);
        printf("frame %d centre (host)   = %u\n", frame, h_fb[(h / 2) * w + w / 2].x);
        CUDA_CHECK(cudaStreamSynchronize(s));
#else
        CUDA_CHECK(cudaStreamSynchronize(s));
#endif
        brightness += h_fb[(h / 2) * w + w / 2].x;
    }
    printf("mean centre brightness %.2f\n", brightness / 120.0);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFreeHost(h_fb));
    CUDA_CHECK(cudaFree(d_fb));
    return 0;
}
