// case: Writer kernel on one stream fills a buffer through VMM alias `wr`, records an event, and the reader stream waits on that event before a kernel reads through alias `rd`, so the aliased access is stream-ordered and needs no fence.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define DRV(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { std::fprintf(stderr, "%s = %d\n", #x, (int)r_); std::exit(1); } } while (0)
#define RT(x)  do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void write_pattern(unsigned* p, int n, unsigned salt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = (unsigned(i) * 2654435761u) ^ salt;
}

__global__ void checksum(const unsigned* p, int n, unsigned long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, (unsigned long long)p[i]);
}

int main() {
    DRV(cuInit(0));
    CUdevice dev; DRV(cuDeviceGet(&dev, 0));
    CUcontext ctx; DRV(cuDevicePrimaryCtxRetain(&ctx, dev)); DRV(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    DRV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t bytes = 2 * gran;

    CUmemGenericAllocationHandle h;
    DRV(cuMemCreate(&h, bytes, &prop, 0));
    CUdeviceptr wr = 0, rd = 0;
    DRV(cuMemAddressReserve(&wr, bytes, 0, 0, 0));
    DRV(cuMemAddressReserve(&rd, bytes, 0, 0, 0));
    DRV(cuMemMap(wr, bytes, 0, h, 0));
    DRV(cuMemMap(rd, bytes, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV(cuMemSetAccess(wr, bytes, &acc, 1));
    DRV(cuMemSetAccess(rd, bytes, &acc, 1));

    cudaStream_t s_write, s_read;
    cudaEvent_t written;
    RT(cudaStreamCreateWithFlags(&s_write, cudaStreamNonBlocking));
    RT(cudaStreamCreateWithFlags(&s_read, cudaStreamNonBlocking));
    RT(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));

    unsigned long long* d_sum;
    RT(cudaMalloc(&d_sum, sizeof(*d_sum)));
    RT(cudaMemsetAsync(d_sum, 0, sizeof(*d_sum), s_read));

    const int n = int(bytes / sizeof(unsigned));
    write_pattern<<<(n + 255) / 256, 256, 0, s_write>>>(reinterpret_cast<unsigned*>(wr), n, 0x5au);
    RT(cudaEventRecord(written, s_write));
    RT(cudaStreamWaitEvent(s_read, written, 0));
    checksum<<<(n + 255) / 256, 256, 0, s_read>>>(reinterpret_cast<const unsigned*>(rd), n, d_sum);

    unsigned long long sum = 0;
    RT(cudaMemcpyAsync(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost, s_read));
    RT(cudaStreamSynchronize(s_read));
    std::printf("checksum %llu\n", sum);

    RT(cudaStreamSynchronize(s_write));
    RT(cudaFree(d_sum));
    RT(cudaEventDestroy(written));
    RT(cudaStreamDestroy(s_read));
    RT(cudaStreamDestroy(s_write));
    DRV(cuMemUnmap(rd, bytes));
    DRV(cuMemUnmap(wr, bytes));
    DRV(cuMemRelease(h));
    DRV(cuMemAddressFree(rd, bytes));
    DRV(cuMemAddressFree(wr, bytes));
    DRV(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
