// case: An n-body integrator keeps positions and velocities in a VirtualBuffer<T> whose destructor (in the header) synchronizes and releases the handle but calls cuMemAddressFree before cuMemUnmap, freeing a range that is still mapped.
// expect: vmm_lifecycle=1
#include "virtual_buffer.cuh"
#include <cuda_runtime.h>
#include <vector>

__global__ void nbody_step(float4* pos, float4* vel, int n, float dt, float soft2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int j = 0; j < n; ++j) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + soft2);
        float s = q.w * inv * inv * inv;
        a.x += dx * s; a.y += dy * s; a.z += dz * s;
    }
    float4 v = vel[i];
    v.x += a.x * dt; v.y += a.y * dt; v.z += a.z * dt;
    vel[i] = v;
    __syncthreads();
    pos[i] = make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
}

int main() {
    cuInit(0);
    CUdevice dev;
    CUcontext ctx;
    cuDeviceGet(&dev, 0);
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);

    const int n = 16384;
    std::vector<float4> init(n);
    for (int i = 0; i < n; ++i) init[i] = make_float4(0.01f * (i % 128), 0.01f * (i / 128), 0.f, 1.f);
    float energy = 0.f;
    {
        VirtualBuffer<float4> pos(n, 0, s), vel(n, 0, s);
        cuMemcpyHtoD(pos.dptr(), init.data(), n * sizeof(float4));
        cuCtxSynchronize();   // the pageable copy may still be landing when it returns
        cuMemsetD32Async(vel.dptr(), 0, n * 4, s);
        for (int step = 0; step < 50; ++step)
            nbody_step<<<(n + 127) / 128, 128, 0, (cudaStream_t)s>>>(pos.get(), vel.get(), n, 1e-3f, 1e-4f);
        std::vector<float4> v(n);
        cuStreamSynchronize(s);
        cuMemcpyDtoH(v.data(), vel.dptr(), n * sizeof(float4));
        for (const float4& x : v) energy += 0.5f * (x.x * x.x + x.y * x.y + x.z * x.z);
    }
    printf("kinetic energy %.6f\n", energy);
    cuStreamDestroy(s);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
