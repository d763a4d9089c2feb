// case: a paged KV-cache maps one physical page pool at a writer address and a reader address; the append kernel writes through the writer view on one stream and the attention kernel reads through the reader view on another stream with no event between them.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>

#define DRV_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_; \
    cuGetErrorString(r_, &s_); std::fprintf(stderr, "%s -> %s\n", #x, s_); std::exit(1); } } while (0)

__global__ void append_kv(__half* kv_write, const __half* new_kv, int tokens, int dim, int page_offset) {
    int t = blockIdx.x, d = threadIdx.x;
    if (t < tokens && d < dim) kv_write[(size_t)(page_offset + t) * dim + d] = new_kv[(size_t)t * dim + d];
}

__global__ void attention_scores(const __half* kv_read, const __half* q, float* scores, int ctx_len, int dim) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ctx_len) return;
    float acc = 0.f;
    for (int d = 0; d < dim; ++d) acc += __half2float(kv_read[(size_t)t * dim + d]) * __half2float(q[d]);
    scores[t] = acc;
}

int main() {
    DRV_CHECK(cuInit(0));
    CUdevice dev; DRV_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx; DRV_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev)); DRV_CHECK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    DRV_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const int dim = 128, max_ctx = 8192;
    const size_t pool = ((size_t)max_ctx * dim * sizeof(__half) + gran - 1) / gran * gran;

    CUmemGenericAllocationHandle pages;
    CUdeviceptr writer_va, reader_va;
    DRV_CHECK(cuMemCreate(&pages, pool, &prop, 0));
    DRV_CHECK(cuMemAddressReserve(&writer_va, pool, 0, 0, 0));
    DRV_CHECK(cuMemAddressReserve(&reader_va, pool, 0, 0, 0));
    DRV_CHECK(cuMemMap(writer_va, pool, 0, pages, 0));
    DRV_CHECK(cuMemMap(reader_va, pool, 0, pages, 0));
    CUmemAccessDesc rw = {};
    rw.location = prop.location;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV_CHECK(cuMemSetAccess(writer_va, pool, &rw, 1));
    DRV_CHECK(cuMemSetAccess(reader_va, pool, &rw, 1));

    cudaStream_t append_stream, attn_stream;
    cudaStreamCreateWithFlags(&append_stream, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&attn_stream, cudaStreamNonBlocking);
    __half *d_new, *d_q; float* d_scores;
    cudaMalloc(&d_new, 64 * dim * sizeof(__half));
    cudaMalloc(&d_q, dim * sizeof(__half));
    cudaMalloc(&d_scores, max_ctx * sizeof(float));
    cudaMemsetAsync(d_new, 0, 64 * dim * sizeof(__half), append_stream);
    cudaMemsetAsync(d_q, 0, dim * sizeof(__half), attn_stream);

    int ctx_len = 0;
    for (int step = 0; step < 16; ++step) {
        append_kv<<<64, dim, 0, append_stream>>>((__half*)writer_va, d_new, 64, dim, ctx_len);
        ctx_len += 64;
        attention_scores<<<(ctx_len + 127) / 128, 128, 0, attn_stream>>>(
            (const __half*)reader_va, d_q, d_scores, ctx_len, dim);
    }
    cudaStreamSynchronize(append_stream);
    cudaStreamSynchronize(attn_stream);
    std::printf("decoded %d tokens of context\n", ctx_len);

    DRV_CHECK(cuMemUnmap(reader_va, pool));
    DRV_CHECK(cuMemUnmap(writer_va, pool));
    DRV_CHECK(cuMemRelease(pages));
    DRV_CHECK(cuMemAddressFree(reader_va, pool));
    DRV_CHECK(cuMemAddressFree(writer_va, pool));
    cudaFree(d_scores); cudaFree(d_q); cudaFree(d_new);
    cudaStreamDestroy(attn_stream); cudaStreamDestroy(append_stream);
    return 0;
}
