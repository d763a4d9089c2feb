// case: lidar ground-segmentation loop that updates managed frame statistics right after launching a kernel that does not use them, but only where cudaDevAttrConcurrentManagedAccess says the device allows it; on other devices it waits for the stream first, so the access is legal on every path: correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

struct FrameStats {
    int frames_submitted;
    int frames_done;
    long long ground_points;
};

__global__ void segment_ground(const float4* pts, int n, float plane_z, float tol, int* is_ground)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    is_ground[i] = fabsf(pts[i].z - plane_z) < tol ? 1 : 0;
}

__global__ void count_flags(const int* flags, int n, unsigned long long* total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && flags[i]) atomicAdd(total, 1ULL);
}

int main()
{
    int dev = 0, concurrent = 0;
    CUDA_CHECK(cudaSetDevice(dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));

    const int n = 1 << 20, frames = 50;
    std::vector<float4> h_pts(n);
    for (int i = 0; i < n; ++i)
        h_pts[i] = make_float4(i % 1000 * 0.05f, i / 1000 * 0.05f, 0.02f * sinf(0.01f * i), 1.f);

    float4* d_pts;
    int* d_ground;
    unsigned long long* d_total;
    CUDA_CHECK(cudaMalloc(&d_pts, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_ground, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemcpy(d_pts, h_pts.data(), n * sizeof(float4), cudaMemcpyHostToDevice));

    FrameStats* stats = nullptr;
    CUDA_CHECK(cudaMallocManaged(&stats, sizeof(FrameStats)));
    stats->frames_submitted = stats->frames_done = 0;
    stats->ground_points = 0;

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    for (int f = 0; f < frames; ++f) {
        CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(unsigned long long), s));
        segment_ground<<<n / 256, 256, 0, s>>>(d_pts, n, 0.0f, 0.015f, d_ground);
        count_flags<<<n / 256, 256, 0, s>>>(d_ground, n, d_total);
        if (!concurrent) {
            // pre-Pascal, Windows, some Jetsons: the GPU owns all managed memory while it runs
            CUDA_CHECK(cudaStreamSynchronize(s));
        }
        stats->frames_submitted += 1;

        unsigned long long ground = 0;
        CUDA_CHECK(cudaStreamSynchronize(s));
        CUDA_CHECK(cudaMemcpy(&ground, d_total, sizeof(ground), cudaMemcpyDeviceToHost));
        stats->ground_points += (long long)ground;
        stats->frames_done += 1;
    }
    printf("ground: %d/%d frames, %.1f ground points per frame\n", stats->frames_done,
           stats->frames_submitted, (double)stats->ground_points / stats->frames_done);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(stats));
    cudaFree(d_pts); cudaFree(d_ground); cudaFree(d_total);
    return 0;
}
