// case: a KV-cache handoff maps one physical allocation at two reserved ranges; a prefill kernel writes through the first mapping on one stream and a decode kernel reads through the second mapping on another stream with no event or stream ordering between them.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <stdexcept>

#define DRV(x)                                                                      \
    do {                                                                            \
        CUresult r_ = (x);                                                          \
        if (r_ != CUDA_SUCCESS) throw std::runtime_error("driver call failed: " #x); \
    } while (0)

__global__ void prefill(__half* kv, int tokens, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < tokens * dim) kv[i] = __float2half(0.001f * (i % 977));
}

__global__ void decode_attend(const __half* kv, const float* q, float* scores, int tokens, int dim) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tokens) return;
    float acc = 0.f;
    for (int d = 0; d < dim; ++d) acc += __half2float(kv[(size_t)t * dim + d]) * q[d];
    scores[t] = acc;
}

struct AliasPair {
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr writer = 0, reader = 0;
    size_t bytes = 0;
};

static AliasPair make_alias_pair(size_t want, int device) {
    AliasPair p;
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    DRV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    p.bytes = ((want + gran - 1) / gran) * gran;
    DRV(cuMemCreate(&p.handle, p.bytes, &prop, 0));
    DRV(cuMemAddressReserve(&p.writer, p.bytes, 0, 0, 0));
    DRV(cuMemAddressReserve(&p.reader, p.bytes, 0, 0, 0));
    DRV(cuMemMap(p.writer, p.bytes, 0, p.handle, 0));
    DRV(cuMemMap(p.reader, p.bytes, 0, p.handle, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV(cuMemSetAccess(p.writer, p.bytes, &acc, 1));
    DRV(cuMemSetAccess(p.reader, p.bytes, &acc, 1));
    return p;
}

int main() {
    DRV(cuInit(0));
    cudaFree(nullptr);  // make the runtime's primary context current
    const int tokens = 2048, dim = 128;
    AliasPair kv = make_alias_pair(sizeof(__half) * tokens * dim, 0);

    cudaStream_t prefill_stream, decode_stream;
    cudaStreamCreateWithFlags(&prefill_stream, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&decode_stream, cudaStreamNonBlocking);

    float *d_q = nullptr, *d_scores = nullptr, *h_scores = nullptr;
    cudaMalloc(&d_q, sizeof(float) * dim);
    cudaMalloc(&d_scores, sizeof(float) * tokens);
    cudaMallocHost(&h_scores, sizeof(float) * tokens);
    cudaMemsetAsync(d_q, 0, sizeof(float) * dim, decode_stream);

    prefill<<<(tokens * dim + 255) / 256, 256, 0, prefill_stream>>>(
        reinterpret_cast<__half*>(kv.writer), tokens, dim);
    decode_attend<<<(tokens + 127) / 128, 128, 0, decode_stream>>>(
        reinterpret_cast<const __half*>(kv.reader), d_q, d_scores, tokens, dim);
    cudaMemcpyAsync(h_scores, d_scores, sizeof(float) * tokens, cudaMemcpyDeviceToHost, decode_stream);

    cudaStreamSynchronize(prefill_stream);
    cudaStreamSynchronize(decode_stream);
    std::printf("score[0]=%f score[last]=%f\n", h_scores[0], h_scores[tokens - 1]);

    cudaFreeHost(h_scores);
    cudaFree(d_q);
    cudaFree(d_scores);
    cudaStreamDestroy(prefill_stream);
    cudaStreamDestroy(decode_stream);
    cuMemUnmap(kv.writer, kv.bytes);
    cuMemUnmap(kv.reader, kv.bytes);
    cuMemRelease(kv.handle);
    cuMemAddressFree(kv.writer, kv.bytes);
    cuMemAddressFree(kv.reader, kv.bytes);
    return 0;
}
