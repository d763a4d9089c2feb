// case: a particle code sorts particles into a spare physical allocation (mapped and granted at a scratch range), then remaps its stable arena onto it with adopt(), which never calls cuMemSetAccess, and the drift kernel uses the arena
// expect: vmm_lifecycle=1
#include "vmm_arena.h"
#include <cuda_runtime.h>

struct Particle { float x, y, z, vx, vy, vz; int cell; int pad; };

__global__ void init_particles(Particle* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = Particle{(float)(i % 97), (float)(i % 89), (float)(i % 83), 0.1f, 0.f, -0.1f, i % 4096, 0};
}

// Counting-sort stand-in: scatters particles by cell into the destination buffer.
__global__ void scatter_by_cell(const Particle* src, Particle* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[(src[i].cell * 7919 + i) % n] = src[i];
}

__global__ void drift(Particle* p, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    p[i].x += dt * p[i].vx;
    p[i].y += dt * p[i].vy;
    p[i].z += dt * p[i].vz;
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    const int n = 1 << 21;
    StableArena arena(0, (size_t)n * sizeof(Particle));
    Particle* particles = reinterpret_cast<Particle*>(arena.base());
    const int blocks = (n + 255) / 256;

    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    init_particles<<<blocks, 256, 0, stream>>>(particles, n);

    // sort once into a fresh backing, seen through a scratch range
    CUmemGenericAllocationHandle spare = arena.create_backing();
    CUdeviceptr scratch = 0;
    CU_CHECK(cuMemAddressReserve(&scratch, arena.bytes(), 0, 0, 0));
    CU_CHECK(cuMemMap(scratch, arena.bytes(), 0, spare, 0));
    arena.grant(scratch, arena.bytes());
    scatter_by_cell<<<blocks, 256, 0, stream>>>(particles, reinterpret_cast<Particle*>(scratch), n);
    cudaStreamSynchronize(stream);
    CU_CHECK(cuMemUnmap(scratch, arena.bytes()));
    CU_CHECK(cuMemAddressFree(scratch, arena.bytes()));

    // the arena keeps its address (and every pointer to it); only the backing changes
    arena.adopt(spare);
    for (int step = 0; step < 100; ++step)
        drift<<<blocks, 256, 0, stream>>>(particles, n, 1e-3f); // EXPECT: vmm_lifecycle
    cudaStreamSynchronize(stream);

    cudaStreamDestroy(stream);
    return 0;
}
