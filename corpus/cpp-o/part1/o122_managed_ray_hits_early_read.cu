// case: ray-casting occlusion test writes hit flags into managed memory; the host counts hits right after the launch with no synchronization, and in the same window fills a managed camera-parameter block that the running kernel does not use.
// expect: missing_sync=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Sphere { float3 c; float r; };
struct Camera { float3 eye; float3 dir; float fov; int width, height; };

__global__ void occlusion(const float3* origins, const float3* dirs, int n,
                          const Sphere* spheres, int ns, unsigned char* hit)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 o = origins[i], d = dirs[i];
    unsigned char h = 0;
    for (int s = 0; s < ns && !h; ++s) {
        float3 oc = make_float3(o.x - spheres[s].c.x, o.y - spheres[s].c.y, o.z - spheres[s].c.z);
        float b = oc.x * d.x + oc.y * d.y + oc.z * d.z;
        float c = oc.x * oc.x + oc.y * oc.y + oc.z * oc.z - spheres[s].r * spheres[s].r;
        h = (b * b - c) > 0.f && b < 0.f;
    }
    hit[i] = h;
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 21, ns = 64;
    float3 *origins, *dirs;
    Sphere* spheres;
    unsigned char* hit;
    Camera* next_cam;
    CUDA_CHECK(cudaMallocManaged(&origins, n * sizeof(float3)));
    CUDA_CHECK(cudaMallocManaged(&dirs, n * sizeof(float3)));
    CUDA_CHECK(cudaMallocManaged(&spheres, ns * sizeof(Sphere)));
    CUDA_CHECK(cudaMallocManaged(&hit, n));
    CUDA_CHECK(cudaMallocManaged(&next_cam, sizeof(Camera)));

    for (int i = 0; i < n; ++i) {
        float a = 6.2831853f * i / n;
        origins[i] = make_float3(0.f, 0.f, 0.f);
        dirs[i] = make_float3(cosf(a), sinf(a), 0.f);
    }
    for (int s = 0; s < ns; ++s) spheres[s] = {make_float3(10.f * cosf(s * 0.1f), 10.f * sinf(s * 0.1f), 0.f), 0.4f};

    occlusion<<<(n + 255) / 256, 256>>>(origins, dirs, n, spheres, ns, hit);
    CUDA_CHECK(cudaGetLastError());

    next_cam->eye = make_float3(0.f, 0.f, 1.f);                 // EXPECT: managed_concurrent_access
    next_cam->dir = make_float3(1.f, 0.f, 0.f);
    next_cam->fov = 60.f;
    next_cam->width = 1920;
    next_cam->height = 1080;

    long visible = 0;
    for (int i = 0; i < n; ++i) visible += hit[i];                // EXPECT: missing_sync
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("%ld of %d rays occluded; next frame %dx%d\n", visible, n, next_cam->width, next_cam->height);

    CUDA_CHECK(cudaFree(next_cam));
    CUDA_CHECK(cudaFree(hit));
    CUDA_CHECK(cudaFree(spheres));
    CUDA_CHECK(cudaFree(dirs));
    CUDA_CHECK(cudaFree(origins));
    return 0;
}
