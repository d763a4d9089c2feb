// case: Producer kernel on stream `prod` writes a tile through VMM alias A while the consumer kernel on stream `cons` reads the same physical pages through alias B; the streams are independent and no event orders the consumer after the producer.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CHK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { std::printf("line %d: CUresult %d\n", __LINE__, (int)r_); return 1; } } while (0)

__global__ void produce(float* tile, int n, float seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tile[i] = seed + 0.5f * i;
}

__global__ void consume(const float* tile, float* sums, int n) {
    __shared__ float part[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = (i < n) ? tile[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

int main() {
    CHK(cuInit(0));
    CUdevice dev; CHK(cuDeviceGet(&dev, 0));
    CUcontext ctx; CHK(cuDevicePrimaryCtxRetain(&ctx, dev)); CHK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran; CHK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t bytes = 8 * gran;

    CUmemGenericAllocationHandle h; CHK(cuMemCreate(&h, bytes, &prop, 0));
    CUdeviceptr a, b;
    CHK(cuMemAddressReserve(&a, bytes, 0, 0, 0));
    CHK(cuMemAddressReserve(&b, bytes, 0, 0, 0));
    CHK(cuMemMap(a, bytes, 0, h, 0));
    CHK(cuMemMap(b, bytes, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHK(cuMemSetAccess(a, bytes, &acc, 1));
    CHK(cuMemSetAccess(b, bytes, &acc, 1));

    const int n = int(bytes / sizeof(float));
    const int blocks = (n + 255) / 256;
    float* d_sums; cudaMalloc(&d_sums, blocks * sizeof(float));

    cudaStream_t prod, cons;
    cudaStreamCreateWithFlags(&prod, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&cons, cudaStreamNonBlocking);

    produce<<<blocks, 256, 0, prod>>>(reinterpret_cast<float*>(a), n, 1.0f);
    consume<<<blocks, 256, 0, cons>>>(reinterpret_cast<const float*>(b), d_sums, n);

    std::vector<float> sums(blocks);
    cudaStreamSynchronize(prod);
    cudaStreamSynchronize(cons);
    cudaMemcpy(sums.data(), d_sums, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    double total = 0; for (float s : sums) total += s;
    std::printf("total %.1f\n", total);

    cudaStreamDestroy(cons); cudaStreamDestroy(prod);
    cudaFree(d_sums);
    CHK(cuMemUnmap(a, bytes)); CHK(cuMemUnmap(b, bytes));
    CHK(cuMemRelease(h));
    CHK(cuMemAddressFree(a, bytes)); CHK(cuMemAddressFree(b, bytes));
    CHK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
