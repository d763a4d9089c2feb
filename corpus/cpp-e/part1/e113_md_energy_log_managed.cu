// case: A molecular-dynamics loop records per-step bookkeeping in a cudaMallocManaged log (default global attach) from the host while the integration kernel, which never touches the log, is still running on its stream.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kAtoms = 1 << 20;
constexpr int kSteps = 200;

struct DeviceFree { void operator()(void* p) const { cudaFree(p); } };
template <typename T> using dev_ptr = std::unique_ptr<T, DeviceFree>;

template <typename T>
dev_ptr<T> device_alloc(size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    return dev_ptr<T>(static_cast<T*>(p));
}

struct StepRecord {
    int step;
    double wall_ms;
};

__global__ void velocity_verlet(float4* pos, float4* vel, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i], v = vel[i];
    float3 f = make_float3(-p.x, -p.y, -p.z); // harmonic trap
    v.x += dt * f.x; v.y += dt * f.y; v.z += dt * f.z;
    p.x += dt * v.x; p.y += dt * v.y; p.z += dt * v.z;
    pos[i] = p; vel[i] = v;
}

int main()
{
    auto pos = device_alloc<float4>(kAtoms);
    auto vel = device_alloc<float4>(kAtoms);
    CUDA_CHECK(cudaMemset(pos.get(), 0, kAtoms * sizeof(float4)));
    CUDA_CHECK(cudaMemset(vel.get(), 0, kAtoms * sizeof(float4)));
    CUDA_CHECK(cudaDeviceSynchronize());

    StepRecord* log = nullptr;
    CUDA_CHECK(cudaMallocManaged(&log, kSteps * sizeof(StepRecord), cudaMemAttachGlobal));

    cudaStream_t md;
    CUDA_CHECK(cudaStreamCreateWithFlags(&md, cudaStreamNonBlocking));
    const auto t0 = std::chrono::steady_clock::now();

    for (int step = 0; step < kSteps; ++step) {
        velocity_verlet<<<kAtoms / 256, 256, 0, md>>>(pos.get(), vel.get(), kAtoms, 1e-3f);
        CUDA_CHECK(cudaGetLastError());
        // bookkeeping overlaps the integration step
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        log[step].step = step; // EXPECT: managed_concurrent_access
        log[step].wall_ms = ms;
        if (step % 50 == 49) CUDA_CHECK(cudaStreamSynchronize(md));
    }
    CUDA_CHECK(cudaStreamSynchronize(md));

    double slowest = 0.0;
    for (int s = 1; s < kSteps; ++s) slowest = std::max(slowest, log[s].wall_ms - log[s - 1].wall_ms);
    std::printf("%d steps, slowest host gap %.3f ms\n", kSteps, slowest);

    CUDA_CHECK(cudaFree(log));
    CUDA_CHECK(cudaStreamDestroy(md));
    return 0;
}
