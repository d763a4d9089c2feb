// case: a helper allocates a signed-distance field, fills it with a kernel and returns the device pointer; main copies the field back and frees it.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s at line %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)

constexpr int kRes = 256;

__global__ void sphere_sdf(float* sdf, int res, float cx, float cy, float cz, float radius)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x >= res || y >= res || z >= res) return;
    float px = (x + 0.5f) / res - cx, py = (y + 0.5f) / res - cy, pz = (z + 0.5f) / res - cz;
    sdf[((size_t)z * res + y) * res + x] = sqrtf(px * px + py * py + pz * pz) - radius;
}

static float* make_sphere_sdf(float radius)
{
    float* d_sdf = nullptr;
    CUDA_CHECK(cudaMalloc(&d_sdf, sizeof(float) * kRes * kRes * kRes));
    dim3 block(16, 16, 1), grid(kRes / 16, kRes / 16, kRes);
    sphere_sdf<<<grid, block>>>(d_sdf, kRes, 0.5f, 0.5f, 0.5f, radius);
    CUDA_CHECK(cudaGetLastError());
    return d_sdf;
}

int main()
{
    float* d_field = make_sphere_sdf(0.25f);

    std::vector<float> field(size_t(kRes) * kRes * kRes);
    CUDA_CHECK(cudaMemcpy(field.data(), d_field, field.size() * sizeof(float), cudaMemcpyDeviceToHost));

    size_t inside = 0;
    for (float v : field) inside += v < 0.f;
    std::printf("voxels inside: %zu\n", inside);

    CUDA_CHECK(cudaFree(d_field));
    return 0;
}
