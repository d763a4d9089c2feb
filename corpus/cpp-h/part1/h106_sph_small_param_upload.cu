// case: SPH fluid step uploads a 192-byte parameter struct and a 4 KiB kernel-weight table from the stack with cudaMemcpyAsync (both far below the 64 KiB small-copy threshold) and the 32 MiB particle arrays from pinned memory; results read after a stream synchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

#define CUDA_CHECK(x) do { cudaError_t e__ = (x); if (e__ != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e__)); exit(1); } } while (0)

struct SphParams {
    float h, h2, mass, rest_density, stiffness, viscosity, dt;
    float gravity[3];
    int grid_dim[3];
    float cell_size;
    float pad[34];
};

__global__ void density(const float4* pos, float* rho, const SphParams* p, const float* w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float r = 0.f;
    for (int j = max(0, i - 32); j < min(n, i + 32); ++j) {
        float dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y, dz = pos[j].z - pos[i].z;
        float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < p->h2) r += p->mass * w[(int)(1023.f * d2 / p->h2)];
    }
    rho[i] = r;
}

int main()
{
    const int n = 1 << 21;
    SphParams params;
    std::memset(&params, 0, sizeof(params));
    params.h = 0.02f; params.h2 = params.h * params.h; params.mass = 0.0002f;
    params.rest_density = 1000.f; params.stiffness = 3.f; params.viscosity = 0.1f; params.dt = 1e-4f;
    params.gravity[2] = -9.81f;

    float weights[1024];
    for (int k = 0; k < 1024; ++k) { float q = 1.f - k / 1023.f; weights[k] = q * q * q; }

    float4* h_pos;
    float* h_rho;
    CUDA_CHECK(cudaMallocHost(&h_pos, n * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost(&h_rho, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_pos[i] = make_float4((i % 128) * 0.01f, (i / 128 % 128) * 0.01f, (i / 16384) * 0.01f, 0.f);

    float4* d_pos; float* d_rho; SphParams* d_params; float* d_w;
    CUDA_CHECK(cudaMalloc(&d_pos, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_rho, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_params, sizeof(SphParams)));
    CUDA_CHECK(cudaMalloc(&d_w, sizeof(weights)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(SphParams), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(d_w, weights, sizeof(weights), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(d_pos, h_pos, n * sizeof(float4), cudaMemcpyHostToDevice, s));
    density<<<(n + 255) / 256, 256, 0, s>>>(d_pos, d_rho, d_params, d_w, n);
    CUDA_CHECK(cudaMemcpyAsync(h_rho, d_rho, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    double avg = 0.0;
    for (int i = 0; i < n; ++i) avg += h_rho[i];
    printf("mean density %f\n", avg / n);

    cudaFree(d_w); cudaFree(d_params); cudaFree(d_rho); cudaFree(d_pos);
    cudaFreeHost(h_rho); cudaFreeHost(h_pos);
    cudaStreamDestroy(s);
    return 0;
}
