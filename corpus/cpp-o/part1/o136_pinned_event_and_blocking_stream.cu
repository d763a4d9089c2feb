// case: particle-in-cell charge deposition reads results from pinned memory only after cudaEventSynchronize on an event recorded after the copy, and reads a second result with a plain cudaMemcpy after a kernel on a stream created with default (blocking) flags, which the legacy default stream waits for: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void push_particles(float2* x, float2* v, int n, float dt, float L)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 p = x[i], u = v[i];
    p.x = fmodf(p.x + u.x * dt + L, L);
    p.y = fmodf(p.y + u.y * dt + L, L);
    x[i] = p;
}

__global__ void deposit(const float2* __restrict__ x, int n, float* rho, int g, float L)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = min(g - 1, (int)(x[i].x / L * g)), cy = min(g - 1, (int)(x[i].y / L * g));
    atomicAdd(&rho[cy * g + cx], 1.f);
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 22, g = 512;
    const float L = 1.f;
    std::vector<float2> x0(n), v0(n);
    for (int i = 0; i < n; ++i) {
        x0[i] = make_float2((i % 2048) / 2048.f, (i / 2048 % 2048) / 2048.f);
        v0[i] = make_float2(0.1f * ((i % 7) - 3), 0.1f * ((i % 5) - 2));
    }
    float2 *d_x, *d_v;
    float *d_rho, *h_rho;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&d_v, n * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&d_rho, (size_t)g * g * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_rho, (size_t)g * g * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, x0.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_v, v0.data(), n * sizeof(float2), cudaMemcpyHostToDevice));

    cudaStream_t pic;                                   // blocking stream: syncs with the legacy stream
    CUDA_CHECK(cudaStreamCreate(&pic));
    cudaEvent_t rho_ready;
    CUDA_CHECK(cudaEventCreateWithFlags(&rho_ready, cudaEventDisableTiming));

    for (int step = 0; step < 20; ++step) {
        push_particles<<<(n + 255) / 256, 256, 0, pic>>>(d_x, d_v, n, 1e-3f, L);
        CUDA_CHECK(cudaMemsetAsync(d_rho, 0, (size_t)g * g * sizeof(float), pic));
        deposit<<<(n + 255) / 256, 256, 0, pic>>>(d_x, n, d_rho, g, L);
        CUDA_CHECK(cudaMemcpyAsync(h_rho, d_rho, (size_t)g * g * sizeof(float), cudaMemcpyDeviceToHost, pic));
        CUDA_CHECK(cudaEventRecord(rho_ready, pic));
        CUDA_CHECK(cudaEventSynchronize(rho_ready));
        float peak = 0.f;
        for (int c = 0; c < g * g; ++c) peak = h_rho[c] > peak ? h_rho[c] : peak;
        if (step % 5 == 0) printf("step %2d: peak cell charge %.0f\n", step, peak);
    }

    push_particles<<<(n + 255) / 256, 256, 0, pic>>>(d_x, d_v, n, 1e-3f, L);
    std::vector<float2> xf(n);
    CUDA_CHECK(cudaMemcpy(xf.data(), d_x, n * sizeof(float2), cudaMemcpyDeviceToHost));
    printf("particle 0 ends at (%.4f, %.4f)\n", xf[0].x, xf[0].y);

    CUDA_CHECK(cudaEventDestroy(rho_ready));
    CUDA_CHECK(cudaStreamDestroy(pic));
    CUDA_CHECK(cudaFreeHost(h_rho));
    CUDA_CHECK(cudaFree(d_rho));
    CUDA_CHECK(cudaFree(d_v));
    CUDA_CHECK(cudaFree(d_x));
    return 0;
}
