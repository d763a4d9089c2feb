// case: producer/consumer pipeline over two VMM views of one allocation on two streams: the producer kernel writes through view A, records an event that the consumer stream waits on before its kernel and its copy read through view B, and the producer in turn waits for the consumer's event before overwriting view A in the next round: every cross-view access is ordered by events, so it is correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) { fprintf(stderr, "%s:%d driver error %d\n", __FILE__, __LINE__, (int)r_); std::exit(1); } \
    } while (0)
#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } \
    } while (0)

__global__ void produce(float* a_view, int n, int round)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a_view[i] = round * 1.0f + i * 1e-6f;
}

__global__ void consume(const float* b_view, int n, float* partial)
{
    __shared__ float acc[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    acc[threadIdx.x] = i < n ? b_view[i] : 0.f;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = acc[0];
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const int n = 1 << 22;
    const size_t size = ((size_t)n * sizeof(float) + g - 1) / g * g;

    CUmemGenericAllocationHandle h;
    CU_CHECK(cuMemCreate(&h, size, &prop, 0));
    CUdeviceptr va_a = 0, va_b = 0;
    CU_CHECK(cuMemAddressReserve(&va_a, size, 0, 0, 0));
    CU_CHECK(cuMemAddressReserve(&va_b, size, 0, 0, 0));
    CU_CHECK(cuMemMap(va_a, size, 0, h, 0));
    CU_CHECK(cuMemMap(va_b, size, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(va_a, size, &acc, 1));
    CU_CHECK(cuMemSetAccess(va_b, size, &acc, 1));

    const int blocks = n / 256;
    float *d_partial = nullptr, *h_partial = nullptr, *h_first = nullptr;
    CUDA_CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_partial, blocks * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_first, 1024 * sizeof(float)));

    cudaStream_t s_prod, s_cons;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_prod, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_cons, cudaStreamNonBlocking));
    cudaEvent_t produced, consumed;
    CUDA_CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming));

    float* a = reinterpret_cast<float*>(va_a);
    const float* b = reinterpret_cast<const float*>(va_b);
    for (int round = 0; round < 4; ++round) {
        if (round > 0) CUDA_CHECK(cudaStreamWaitEvent(s_prod, consumed, 0)); // B's readers are done
        produce<<<blocks, 256, 0, s_prod>>>(a, n, round);
        CUDA_CHECK(cudaEventRecord(produced, s_prod));

        CUDA_CHECK(cudaStreamWaitEvent(s_cons, produced, 0)); // A's writer is done
        consume<<<blocks, 256, 0, s_cons>>>(b, n, d_partial);
        CUDA_CHECK(cudaMemcpyAsync(h_first, b, 1024 * sizeof(float), cudaMemcpyDeviceToHost, s_cons));
        CUDA_CHECK(cudaMemcpyAsync(h_partial, d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost, s_cons));
        CUDA_CHECK(cudaEventRecord(consumed, s_cons));

        CUDA_CHECK(cudaStreamSynchronize(s_cons));
        double sum = 0.0;
        for (int k = 0; k < blocks; ++k) sum += h_partial[k];
        printf("round %d: sum %.2f, first %.6f\n", round, sum, h_first[1]);
    }

    CUDA_CHECK(cudaStreamSynchronize(s_prod));
    CUDA_CHECK(cudaEventDestroy(produced));
    CUDA_CHECK(cudaEventDestroy(consumed));
    CUDA_CHECK(cudaStreamDestroy(s_prod));
    CUDA_CHECK(cudaStreamDestroy(s_cons));
    CUDA_CHECK(cudaFree(d_partial));
    CUDA_CHECK(cudaFreeHost(h_partial));
    CUDA_CHECK(cudaFreeHost(h_first));
    CU_CHECK(cuMemUnmap(va_a, size));
    CU_CHECK(cuMemUnmap(va_b, size));
    CU_CHECK(cuMemRelease(h));
    CU_CHECK(cuMemAddressFree(va_a, size));
    CU_CHECK(cuMemAddressFree(va_b, size));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
