// case: A block-local permutation maps one physical allocation at two reservations; the kernel writing through one view and reading through the other executes fence.proxy.alias (kernel in the included header), and the second-stream consumer waits on an event recorded after the producer.
// expect: none
#include <cuda.h>
#include "alias_kernels.cuh"
#include <cstdio>
#include <vector>

#define DCHK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { fprintf(stderr, "%s = %d\n", #x, int(r_)); return 1; } } while (0)
#define RCHK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

int main() {
    DCHK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DCHK(cuDeviceGet(&dev, 0));
    DCHK(cuDevicePrimaryCtxRetain(&ctx, dev));
    DCHK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran;
    DCHK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t bytes = gran;
    CUmemGenericAllocationHandle phys;
    DCHK(cuMemCreate(&phys, bytes, &prop, 0));
    CUdeviceptr va_a, va_b;
    DCHK(cuMemAddressReserve(&va_a, bytes, 0, 0, 0));
    DCHK(cuMemAddressReserve(&va_b, bytes, 0, 0, 0));
    DCHK(cuMemMap(va_a, bytes, 0, phys, 0));
    DCHK(cuMemMap(va_b, bytes, 0, phys, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DCHK(cuMemSetAccess(va_a, bytes, &acc, 1));
    DCHK(cuMemSetAccess(va_b, bytes, &acc, 1));

    const int n = int(bytes / sizeof(int));
    const int block = 256;
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i) perm[i] = (i / block) * block + (block - 1 - i % block);   // reverse within block
    int *d_perm, *d_out;
    unsigned long long* d_acc;
    RCHK(cudaMalloc(&d_perm, n * sizeof(int)));
    RCHK(cudaMalloc(&d_out, n * sizeof(int)));
    RCHK(cudaMalloc(&d_acc, sizeof(unsigned long long)));
    RCHK(cudaMemcpy(d_perm, perm.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    RCHK(cudaMemset(d_acc, 0, sizeof(unsigned long long)));
    RCHK(cudaDeviceSynchronize());

    cudaStream_t producer, consumer;
    cudaEvent_t written;
    RCHK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
    RCHK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
    RCHK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));

    scatter_gather<<<n / block, block, 0, producer>>>((int*)va_a, (const int*)va_b, d_perm, d_out, n);
    RCHK(cudaEventRecord(written, producer));
    RCHK(cudaStreamWaitEvent(consumer, written, 0));
    checksum_view<<<n / block, block, 0, consumer>>>((const int*)va_b, d_acc, n);

    unsigned long long sum = 0;
    std::vector<int> out(n);
    RCHK(cudaStreamSynchronize(consumer));
    RCHK(cudaStreamSynchronize(producer));
    RCHK(cudaMemcpy(&sum, d_acc, sizeof(sum), cudaMemcpyDeviceToHost));
    RCHK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < n; ++i) bad += out[i] != perm[i] * 3 + 1;
    printf("alias permute: %ld mismatches, checksum %llu\n", bad, sum);

    DCHK(cuMemUnmap(va_a, bytes));
    DCHK(cuMemUnmap(va_b, bytes));
    DCHK(cuMemRelease(phys));
    DCHK(cuMemAddressFree(va_a, bytes));
    DCHK(cuMemAddressFree(va_b, bytes));
    cudaFree(d_perm); cudaFree(d_out); cudaFree(d_acc);
    cudaEventDestroy(written);
    cudaStreamDestroy(producer); cudaStreamDestroy(consumer);
    return 0;
}
