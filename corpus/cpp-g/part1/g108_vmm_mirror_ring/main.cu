// case: Mirrored VMM ring (one cuMemCreate allocation mapped at base and base+size): the kernel appends through the upper mirror and reads the wrapped records through the lower view, with fence.proxy.alias between the write and the read.
// expect: none
#include <cuda_runtime.h>
#include "mirror_ring.h"

__global__ void append_and_consume(float* lo, float* hi, size_t cap, size_t tail,
                                   int count, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    // records [tail, tail + count) run past the end of the ring: write them through the mirror
    hi[tail + i - cap] = 100.0f + i;
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    // and read the same records back through the lower view
    out[i] = lo[(tail + i) - cap];
}

int main() {
    DRV_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV_CHECK(cuDeviceGet(&dev, 0));
    DRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV_CHECK(cuCtxSetCurrent(ctx));

    MirrorRing ring;
    ring.create(0, 1 << 20);
    const size_t cap = ring.size / sizeof(float);
    float* lo = reinterpret_cast<float*>(ring.base);
    float* hi = reinterpret_cast<float*>(ring.base + ring.size);

    const int count = 256;
    float* d_out = nullptr;
    cudaMalloc(&d_out, count * sizeof(float));
    float h_out[count];

    append_and_consume<<<1, count>>>(lo, hi, cap, /*tail=*/cap, count, d_out);
    cudaMemcpy(h_out, d_out, sizeof(h_out), cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int i = 0; i < count; ++i) bad += (h_out[i] != 100.0f + i);
    std::printf("mirror ring: %d mismatches\n", bad);

    cudaFree(d_out);
    DRV_CHECK(cuCtxSynchronize());
    ring.destroy();
    DRV_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
