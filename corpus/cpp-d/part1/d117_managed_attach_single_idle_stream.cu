// case: game-engine fluid pass that keeps per-frame telemetry in managed memory attached (cudaMemAttachSingle, then a synchronize so the attachment has taken effect) to a side stream that never runs work; the host writes telemetry while the advection kernel runs on the compute stream, which is allowed because the stream the memory is associated with is idle: correct.
// expect: none
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

struct FrameTelemetry {
    int frame;
    double submit_ms;
    double wait_ms;
};

__global__ void advect(const float2* vel, const float* src, float* dst, int w, int h, float dt)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float2 v = vel[y * w + x];
    float px = fminf(fmaxf(x - dt * v.x, 0.f), w - 1.001f);
    float py = fminf(fmaxf(y - dt * v.y, 0.f), h - 1.001f);
    int x0 = (int)px, y0 = (int)py;
    float fx = px - x0, fy = py - y0;
    float a = src[y0 * w + x0], b = src[y0 * w + x0 + 1];
    float c = src[(y0 + 1) * w + x0], d = src[(y0 + 1) * w + x0 + 1];
    dst[y * w + x] = (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
}

static double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int main()
{
    const int w = 2048, h = 2048, frames = 240;
    float2* d_vel;
    float *d_a, *d_b;
    CUDA_CHECK(cudaMalloc(&d_vel, (size_t)w * h * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&d_a, (size_t)w * h * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, (size_t)w * h * sizeof(float)));

    cudaStream_t compute, telemetry_stream;
    CUDA_CHECK(cudaStreamCreate(&compute));
    CUDA_CHECK(cudaStreamCreate(&telemetry_stream));
    CUDA_CHECK(cudaMemsetAsync(d_vel, 0, (size_t)w * h * sizeof(float2), compute));
    CUDA_CHECK(cudaMemsetAsync(d_a, 0, (size_t)w * h * sizeof(float), compute));

    FrameTelemetry* tele = nullptr;
    CUDA_CHECK(cudaMallocManaged(&tele, frames * sizeof(FrameTelemetry)));
    CUDA_CHECK(cudaStreamAttachMemAsync(telemetry_stream, tele, 0, cudaMemAttachSingle));
    CUDA_CHECK(cudaStreamSynchronize(telemetry_stream)); // the association is in effect

    dim3 block(16, 16), grid(w / 16, h / 16);
    for (int f = 0; f < frames; ++f) {
        auto t0 = std::chrono::steady_clock::now();
        advect<<<grid, block, 0, compute>>>(d_vel, d_a, d_b, w, h, 0.016f);
        tele[f].frame = f;              // telemetry_stream is idle: host access allowed
        tele[f].submit_ms = ms_since(t0);
        CUDA_CHECK(cudaStreamSynchronize(compute));
        tele[f].wait_ms = ms_since(t0);
        std::swap(d_a, d_b);
    }

    double worst = 0.0;
    for (int f = 0; f < frames; ++f) worst = tele[f].wait_ms > worst ? tele[f].wait_ms : worst;
    printf("fluid: %d frames, worst frame %.3f ms\n", frames, worst);

    CUDA_CHECK(cudaFree(tele));
    CUDA_CHECK(cudaStreamDestroy(telemetry_stream));
    CUDA_CHECK(cudaStreamDestroy(compute));
    cudaFree(d_vel); cudaFree(d_a); cudaFree(d_b);
    return 0;
}
