// case: A point-cloud normal estimator computes on one non-blocking stream and reads back on another: the copy stream waits on an event recorded after the kernel, and the host reads the pinned normals after synchronizing only the copy stream, which transitively covers the kernel.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kPoints = 1 << 20;
constexpr int kNeighbors = 8;

__global__ void estimate_normals(const float3* pts, int n, float3* normals)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 c = pts[i], acc = make_float3(0.f, 0.f, 0.f);
    for (int k = 1; k <= kNeighbors; ++k) {
        float3 a = pts[(i + k) % n], b = pts[(i + 2 * k) % n];
        float3 u = make_float3(a.x - c.x, a.y - c.y, a.z - c.z);
        float3 v = make_float3(b.x - c.x, b.y - c.y, b.z - c.z);
        acc.x += u.y * v.z - u.z * v.y;
        acc.y += u.z * v.x - u.x * v.z;
        acc.z += u.x * v.y - u.y * v.x;
    }
    float len = sqrtf(acc.x * acc.x + acc.y * acc.y + acc.z * acc.z) + 1e-12f;
    normals[i] = make_float3(acc.x / len, acc.y / len, acc.z / len);
}

struct Pipeline {
    cudaStream_t compute{}, copy{};
    cudaEvent_t normals_ready{};
    Pipeline() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&normals_ready, cudaEventDisableTiming));
    }
    ~Pipeline() {
        cudaEventDestroy(normals_ready);
        cudaStreamDestroy(copy);
        cudaStreamDestroy(compute);
    }
};

int main()
{
    Pipeline p;
    float3 *h_pts = nullptr, *h_normals = nullptr, *d_pts = nullptr, *d_normals = nullptr;
    const size_t bytes = kPoints * sizeof(float3);
    CUDA_CHECK(cudaMallocHost(&h_pts, bytes));
    CUDA_CHECK(cudaMallocHost(&h_normals, bytes));
    CUDA_CHECK(cudaMalloc(&d_pts, bytes));
    CUDA_CHECK(cudaMalloc(&d_normals, bytes));
    for (int i = 0; i < kPoints; ++i) h_pts[i] = make_float3(i % 1024 * 0.01f, i / 1024 * 0.01f, 0.001f * (i % 7));

    CUDA_CHECK(cudaMemcpyAsync(d_pts, h_pts, bytes, cudaMemcpyHostToDevice, p.compute));
    estimate_normals<<<(kPoints + 255) / 256, 256, 0, p.compute>>>(d_pts, kPoints, d_normals);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(p.normals_ready, p.compute));

    CUDA_CHECK(cudaStreamWaitEvent(p.copy, p.normals_ready, 0));
    CUDA_CHECK(cudaMemcpyAsync(h_normals, d_normals, bytes, cudaMemcpyDeviceToHost, p.copy));
    CUDA_CHECK(cudaStreamSynchronize(p.copy));

    int flipped = 0;
    for (int i = 0; i < kPoints; ++i) flipped += h_normals[i].z < 0.f;
    std::printf("%d of %d normals face down\n", flipped, kPoints);

    // h_pts is no longer read by anything in flight: the kernel finished before the copy stream ran
    for (int i = 0; i < kPoints; ++i) h_pts[i].z = 0.f;

    CUDA_CHECK(cudaFree(d_normals));
    CUDA_CHECK(cudaFree(d_pts));
    CUDA_CHECK(cudaFreeHost(h_normals));
    CUDA_CHECK(cudaFreeHost(h_pts));
    return 0;
}
