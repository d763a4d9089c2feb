// case: Seismic wave propagation with driver-API allocations writes the initial source impulse straight into the cuMemAlloc'd wavefield through a casted host pointer, and reads the receiver trace back with destination and source swapped under cudaMemcpyDeviceToHost.
// expect: host_deref_device_ptr=1, memcpy_kind_mismatch=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 2048
#define NZ 1024
#define NT 2000
#define DRV_CHECK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { fprintf(stderr, "%s: %d\n", #x, (int)r); exit(1); } } while (0)

__global__ void step(const float* prev, const float* cur, float* next, const float* vel2dt2, float* trace, int t, int rz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int z = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || z < 1 || x >= NX - 1 || z >= NZ - 1) return;
    int i = z * NX + x;
    float lap = cur[i - 1] + cur[i + 1] + cur[i - NX] + cur[i + NX] - 4.f * cur[i];
    next[i] = 2.f * cur[i] - prev[i] + vel2dt2[i] * lap;
    if (z == rz && x == NX / 2) trace[t] = next[i];
}

static float ricker(int t, float f, float dt)
{
    float a = 3.14159265f * f * (t * dt - 1.f / f);
    return (1.f - 2.f * a * a) * expf(-a * a);
}

int main(void)
{
    const size_t field = (size_t)NX * NZ * sizeof(float);
    CUdevice dev; CUcontext ctx;
    DRV_CHECK(cuInit(0));
    DRV_CHECK(cuDeviceGet(&dev, 0));
    DRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV_CHECK(cuCtxSetCurrent(ctx));

    CUdeviceptr d_u[3], d_vel, d_trace;
    for (int k = 0; k < 3; ++k) { DRV_CHECK(cuMemAlloc(&d_u[k], field)); DRV_CHECK(cuMemsetD32(d_u[k], 0, NX * NZ)); }
    DRV_CHECK(cuMemAlloc(&d_vel, field));
    DRV_CHECK(cuMemAlloc(&d_trace, NT * sizeof(float)));

    float* h_vel = (float*)malloc(field);
    float* h_trace = (float*)malloc(NT * sizeof(float));
    const float dt = 5e-4f, dx = 5.f;
    for (int i = 0; i < NX * NZ; ++i) { float v = 1500.f + (i / NX) * 1.5f; h_vel[i] = v * v * dt * dt / (dx * dx); }
    DRV_CHECK(cuMemcpyHtoD(d_vel, h_vel, field));
    DRV_CHECK(cuCtxSynchronize());

    /* initial impulse at the source position */
    float* u1 = (float*)d_u[1];
    u1[10 * NX + NX / 2] = ricker(0, 15.f, dt);

    dim3 block(32, 8), grid(NX / 32, NZ / 8);
    for (int t = 0; t < NT; ++t) {
        step<<<grid, block>>>((float*)d_u[t % 3], (float*)d_u[(t + 1) % 3], (float*)d_u[(t + 2) % 3],
                              (float*)d_vel, (float*)d_trace, t, 12);
    }
    cudaDeviceSynchronize();

    cudaMemcpy((void*)d_trace, h_trace, NT * sizeof(float), cudaMemcpyDeviceToHost);
    float peak = 0.f;
    for (int t = 0; t < NT; ++t) if (fabsf(h_trace[t]) > peak) peak = fabsf(h_trace[t]);
    printf("receiver peak amplitude %g\n", peak);

    free(h_trace); free(h_vel);
    cuMemFree(d_trace); cuMemFree(d_vel);
    for (int k = 0; k < 3; ++k) cuMemFree(d_u[k]);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
