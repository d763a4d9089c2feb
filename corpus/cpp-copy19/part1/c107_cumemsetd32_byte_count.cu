// case: force accumulator allocated with the driver API and cleared with cuMemsetD32 given the byte count instead of the 32-bit word count, writing 4x past the allocation
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

#define DRV_CHECK(call)                                                     \
    do {                                                                    \
        CUresult r_ = (call);                                               \
        if (r_ != CUDA_SUCCESS) {                                           \
            const char *msg = nullptr;                                      \
            cuGetErrorString(r_, &msg);                                     \
            std::fprintf(stderr, "%s -> %s\n", #call, msg ? msg : "?");     \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

constexpr int kBodies = 8192;
constexpr size_t kForceBytes = kBodies * 3 * sizeof(float);
constexpr size_t kPosBytes = kBodies * 3 * sizeof(float);

__global__ void accumulate_forces(const float *pos, float *force, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
    for (int j = 0; j < n; ++j) {
        float dx = pos[3 * j] - xi, dy = pos[3 * j + 1] - yi, dz = pos[3 * j + 2] - zi;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-3f);
        float s = inv * inv * inv;
        force[3 * i] += dx * s;
        force[3 * i + 1] += dy * s;
        force[3 * i + 2] += dz * s;
    }
}

int main()
{
    DRV_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0); // make the primary context current

    static float h_pos[kBodies * 3];
    static float h_force[kBodies * 3];
    for (int i = 0; i < kBodies * 3; ++i) h_pos[i] = float((i * 7919) % 1000) * 0.01f;

    CUdeviceptr d_pos = 0, d_force = 0;
    DRV_CHECK(cuMemAlloc(&d_pos, kPosBytes));
    DRV_CHECK(cuMemAlloc(&d_force, kForceBytes));

    DRV_CHECK(cuMemcpyHtoD(d_pos, h_pos, kPosBytes));
    DRV_CHECK(cuMemsetD32(d_force, 0, kForceBytes)); // EXPECT: copy_out_of_bounds

    accumulate_forces<<<(kBodies + 127) / 128, 128>>>(
        reinterpret_cast<const float *>(d_pos), reinterpret_cast<float *>(d_force), kBodies);
    DRV_CHECK(cuCtxSynchronize());

    DRV_CHECK(cuMemcpyDtoH(h_force, d_force, kForceBytes));
    std::printf("f[0] = (%g, %g, %g)\n", h_force[0], h_force[1], h_force[2]);

    DRV_CHECK(cuMemFree(d_pos));
    DRV_CHECK(cuMemFree(d_force));
    return 0;
}
