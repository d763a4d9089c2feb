// case: Zero-copy flags: cudaHostAlloc(cudaHostAllocMapped) memory is written by the kernel through the pointer from cudaHostGetDevicePointer, and the host reads only its own host pointer after cudaDeviceSynchronize.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CALL(x) do { if ((x) != cudaSuccess) { std::printf("error at %s:%d\n", __FILE__, __LINE__); std::exit(EXIT_FAILURE); } } while (0)

struct Particle { float x, y, z, w; };

__global__ void flag_escaped(const Particle* p, int n, float radius2, int* flags) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float r2 = p[i].x * p[i].x + p[i].y * p[i].y + p[i].z * p[i].z;
    flags[i] = r2 > radius2;
}

int main() {
    const int n = 1 << 20;
    CUDA_CALL(cudaSetDeviceFlags(cudaDeviceMapHost));

    Particle* h_particles = nullptr;
    Particle* d_particles = nullptr;
    int* h_flags = nullptr;   // host view of mapped memory
    int* d_flags = nullptr;   // device view of the same memory

    CUDA_CALL(cudaMallocHost(&h_particles, n * sizeof(Particle)));
    CUDA_CALL(cudaMalloc(&d_particles, n * sizeof(Particle)));
    CUDA_CALL(cudaHostAlloc(&h_flags, n * sizeof(int), cudaHostAllocMapped));
    CUDA_CALL(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_flags), h_flags, 0));

    for (int i = 0; i < n; ++i) {
        float t = i * 1e-5f;
        h_particles[i] = Particle{t, -t, 0.5f * t, 1.0f};
    }
    CUDA_CALL(cudaMemcpy(d_particles, h_particles, n * sizeof(Particle), cudaMemcpyHostToDevice));

    flag_escaped<<<(n + 255) / 256, 256>>>(d_particles, n, 25.0f, d_flags);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaDeviceSynchronize());

    int escaped = 0;
    for (int i = 0; i < n; ++i) escaped += h_flags[i];
    std::printf("%d of %d particles escaped\n", escaped, n);

    CUDA_CALL(cudaFreeHost(h_flags));
    CUDA_CALL(cudaFree(d_particles));
    CUDA_CALL(cudaFreeHost(h_particles));
    return 0;
}
