// case: A KV-cache style pool maps one physical page into a writer view and a reader view (two reservations); the writer kernel runs on one stream and the attention-like reader kernel on another non-blocking stream, with no event ordering them.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <vector>

#define CU_OK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s = nullptr; \
    cuGetErrorName(r, &s); fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, s); return 1; } } while (0)
#define RT_OK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void write_kv(half2* page, const half2* __restrict__ src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) page[i] = src[i];
}

__global__ void score_keys(const half2* page, const half2* __restrict__ q, float* scores, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 k = __half22float2(page[i]);
    float2 qq = __half22float2(q[i % 64]);
    scores[i] = k.x * qq.x + k.y * qq.y;
}

int main() {
    CU_OK(cuInit(0));
    CUdevice dev;
    CU_OK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_OK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran;
    CU_OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t page_bytes = gran * 4;

    CUmemGenericAllocationHandle page;
    CU_OK(cuMemCreate(&page, page_bytes, &prop, 0));
    CUdeviceptr writer_va, reader_va;
    CU_OK(cuMemAddressReserve(&writer_va, page_bytes, gran, 0, 0));
    CU_OK(cuMemAddressReserve(&reader_va, page_bytes, gran, 0, 0));
    CU_OK(cuMemMap(writer_va, page_bytes, 0, page, 0));
    CU_OK(cuMemMap(reader_va, page_bytes, 0, page, 0));
    CUmemAccessDesc rw = {};
    rw.location = prop.location;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_OK(cuMemSetAccess(writer_va, page_bytes, &rw, 1));
    CU_OK(cuMemSetAccess(reader_va, page_bytes, &rw, 1));

    const int n = int(page_bytes / sizeof(half2));
    half2 *d_src, *d_q;
    float *d_scores, *h_scores;
    RT_OK(cudaMalloc(&d_src, n * sizeof(half2)));
    RT_OK(cudaMalloc(&d_q, 64 * sizeof(half2)));
    RT_OK(cudaMalloc(&d_scores, n * sizeof(float)));
    RT_OK(cudaMallocHost(&h_scores, n * sizeof(float)));
    RT_OK(cudaMemset(d_src, 0x3c, n * sizeof(half2)));
    RT_OK(cudaMemset(d_q, 0x3c, 64 * sizeof(half2)));
    RT_OK(cudaDeviceSynchronize());

    cudaStream_t append_stream, attn_stream;
    RT_OK(cudaStreamCreateWithFlags(&append_stream, cudaStreamNonBlocking));
    RT_OK(cudaStreamCreateWithFlags(&attn_stream, cudaStreamNonBlocking));

    write_kv<<<(n + 255) / 256, 256, 0, append_stream>>>(reinterpret_cast<half2*>(writer_va), d_src, n);
    // missing: cudaEventRecord(ev, append_stream); cudaStreamWaitEvent(attn_stream, ev, 0);
    score_keys<<<(n + 255) / 256, 256, 0, attn_stream>>>(reinterpret_cast<const half2*>(reader_va), d_q, d_scores, n);
    RT_OK(cudaMemcpyAsync(h_scores, d_scores, n * sizeof(float), cudaMemcpyDeviceToHost, attn_stream));

    RT_OK(cudaStreamSynchronize(append_stream));
    RT_OK(cudaStreamSynchronize(attn_stream));
    double total = 0.0;
    for (int i = 0; i < n; ++i) total += h_scores[i];
    printf("score sum %.3f over %d keys\n", total, n);

    CU_OK(cuMemUnmap(writer_va, page_bytes));
    CU_OK(cuMemUnmap(reader_va, page_bytes));
    CU_OK(cuMemRelease(page));
    CU_OK(cuMemAddressFree(writer_va, page_bytes));
    CU_OK(cuMemAddressFree(reader_va, page_bytes));
    cudaFreeHost(h_scores);
    cudaFree(d_scores); cudaFree(d_q); cudaFree(d_src);
    cudaStreamDestroy(append_stream);
    cudaStreamDestroy(attn_stream);
    return 0;
}
