// case: finite-volume solver keeps host and device copies side by side in a Mirrored<T> struct; host code only indexes the .host side (after blocking copies), passes .dev and .dev + offset to kernels and cudaMemcpy, and logs the device address with %p: no host access to device memory.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <string>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

template <typename T>
struct Mirrored {
    std::vector<T> host;
    T* dev = nullptr;
    std::string name;
    Mirrored(size_t n, std::string nm) : host(n), name(std::move(nm)) {
        CUDA_CHECK(cudaMalloc(&dev, n * sizeof(T)));
        printf("[alloc] %-8s %zu bytes at device address %p\n", name.c_str(), n * sizeof(T), (void*)dev);
    }
    ~Mirrored() { cudaFree(dev); }
    void to_device() { CUDA_CHECK(cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice)); }
    void to_host() { CUDA_CHECK(cudaMemcpy(host.data(), dev, host.size() * sizeof(T), cudaMemcpyDeviceToHost)); }
    T& operator[](size_t i) { return host[i]; }
};

__global__ void upwind_flux(const float* __restrict__ q, float* __restrict__ flux, float a, int cells)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cells) flux[i] = a > 0.f ? a * q[i] : a * q[i + 1];
}

__global__ void update(float* q, const float* __restrict__ flux, float dtdx, int cells)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (i < cells) q[i] -= dtdx * (flux[i] - flux[i - 1]);
}

int main(int argc, char** argv)
{
    int cells = argc > 1 ? atoi(argv[1]) : 1 << 20;
    Mirrored<float> q(cells + 1, "q"), flux(cells, "flux");
    for (int i = 0; i <= cells; ++i) q[i] = (i > cells / 4 && i < cells / 2) ? 1.f : 0.f;
    q.to_device();

    const float a = 1.f, dx = 1.f / cells, dt = 0.5f * dx;
    for (int step = 0; step < 1000; ++step) {
        upwind_flux<<<(cells + 255) / 256, 256>>>(q.dev, flux.dev, a, cells);
        update<<<(cells + 255) / 256, 256>>>(q.dev, flux.dev, dt / dx, cells);
    }
    CUDA_CHECK(cudaGetLastError());
    q.to_host();

    // Re-impose the inflow boundary on the first 16 cells only.
    for (int i = 0; i < 16; ++i) q[i] = 0.f;
    CUDA_CHECK(cudaMemcpy(q.dev, q.host.data(), 16 * sizeof(float), cudaMemcpyHostToDevice));
    float tail[8];
    CUDA_CHECK(cudaMemcpy(tail, q.dev + (cells - 8), sizeof(tail), cudaMemcpyDeviceToHost));

    double mass = 0.0;
    for (int i = 0; i <= cells; ++i) mass += q[i] * dx;
    printf("mass %.6f, tail[7] %.4f, q buffer %p\n", mass, tail[7], (void*)q.dev);
    return 0;
}
