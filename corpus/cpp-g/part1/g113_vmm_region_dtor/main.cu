// case: A RAII VmmRegion (header) is used correctly by a prefix-sum kernel, but its destructor calls cuMemAddressFree on the reserved range before cuMemUnmap, i.e. while the range is still mapped.
// expect: vmm_lifecycle=1
#include <cuda_runtime.h>
#include <vector>
#include "vmm_region.h"

__global__ void block_scan(const int* in, int* out, int n) {
    __shared__ int tmp[512];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tmp[threadIdx.x] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        int v = (threadIdx.x >= off) ? tmp[threadIdx.x - off] : 0;
        __syncthreads();
        tmp[threadIdx.x] += v;
        __syncthreads();
    }
    if (i < n) out[i] = tmp[threadIdx.x];
}

int main() try {
    DRV_CALL(cuInit(0));
    CUdevice dev; DRV_CALL(cuDeviceGet(&dev, 0));
    CUcontext ctx; DRV_CALL(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV_CALL(cuCtxSetCurrent(ctx));

    const int n = 1 << 20;
    std::vector<int> host(n, 1);
    {
        VmmRegion in(0, n * sizeof(int));
        VmmRegion out(0, n * sizeof(int));
        cudaMemcpy(in.as<int>(), host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
        block_scan<<<n / 512, 512>>>(in.as<int>(), out.as<int>(), n);
        cudaMemcpy(host.data(), out.as<int>(), n * sizeof(int), cudaMemcpyDeviceToHost);
        std::printf("last of first block: %d (expect 512)\n", host[511]);
        cudaDeviceSynchronize();
    }
    DRV_CALL(cuDevicePrimaryCtxRelease(dev));
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}
