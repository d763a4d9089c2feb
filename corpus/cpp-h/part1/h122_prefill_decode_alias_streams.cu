// case: LLM serving maps one physical KV page into the prefill engine's range and the decode engine's range; the prefill kernel writes keys through one view on stream A while the decode kernel reads them through the other view on stream B with no event between the streams.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>

#define DRV(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { std::fprintf(stderr, "%s:%d err %d\n", __FILE__, __LINE__, (int)r_); std::exit(1); } } while (0)
#define RT(x)  do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kHeads = 32, kHeadDim = 128, kPageTokens = 256;

__global__ void prefill_write_kv(__half* kv, const float* proj, int tokens)
{
    int t = blockIdx.x, h = blockIdx.y, d = threadIdx.x;
    if (t >= tokens) return;
    size_t off = ((size_t)t * kHeads + h) * kHeadDim + d;
    kv[off] = __float2half(proj[off] * 0.088388f);
}

__global__ void decode_scores(const __half* kv, const float* q, float* scores, int tokens)
{
    int t = blockIdx.x, h = blockIdx.y;
    if (t >= tokens) return;
    __shared__ float part[kHeadDim];
    size_t off = ((size_t)t * kHeads + h) * kHeadDim + threadIdx.x;
    part[threadIdx.x] = __half2float(kv[off]) * q[h * kHeadDim + threadIdx.x];
    __syncthreads();
    for (int s = kHeadDim / 2; s > 0; s >>= 1) { if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s]; __syncthreads(); }
    if (threadIdx.x == 0) scores[h * tokens + t] = part[0];
}

int main()
{
    DRV(cuInit(0));
    RT(cudaSetDevice(0));
    RT(cudaFree(0));
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g; DRV(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    size_t page = ((size_t)kPageTokens * kHeads * kHeadDim * sizeof(__half) + g - 1) / g * g;

    CUmemGenericAllocationHandle kv_page;
    DRV(cuMemCreate(&kv_page, page, &prop, 0));
    CUdeviceptr prefill_va, decode_va;
    DRV(cuMemAddressReserve(&prefill_va, page, 0, 0, 0));
    DRV(cuMemAddressReserve(&decode_va, page, 0, 0, 0));
    DRV(cuMemMap(prefill_va, page, 0, kv_page, 0));
    DRV(cuMemMap(decode_va, page, 0, kv_page, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV(cuMemSetAccess(prefill_va, page, &acc, 1));
    DRV(cuMemSetAccess(decode_va, page, &acc, 1));

    float *d_proj, *d_q, *d_scores;
    RT(cudaMalloc(&d_proj, (size_t)kPageTokens * kHeads * kHeadDim * sizeof(float)));
    RT(cudaMalloc(&d_q, kHeads * kHeadDim * sizeof(float)));
    RT(cudaMalloc(&d_scores, kHeads * kPageTokens * sizeof(float)));
    RT(cudaMemset(d_proj, 0, (size_t)kPageTokens * kHeads * kHeadDim * sizeof(float)));
    RT(cudaMemset(d_q, 0, kHeads * kHeadDim * sizeof(float)));
    RT(cudaDeviceSynchronize());

    cudaStream_t prefill, decode;
    RT(cudaStreamCreateWithFlags(&prefill, cudaStreamNonBlocking));
    RT(cudaStreamCreateWithFlags(&decode, cudaStreamNonBlocking));

    prefill_write_kv<<<dim3(kPageTokens, kHeads), kHeadDim, 0, prefill>>>((__half*)prefill_va, d_proj, kPageTokens);
    decode_scores<<<dim3(kPageTokens, kHeads), kHeadDim, 0, decode>>>((const __half*)decode_va, d_q, d_scores, kPageTokens);

    RT(cudaStreamSynchronize(decode));
    RT(cudaStreamSynchronize(prefill));
    float s0;
    RT(cudaMemcpy(&s0, d_scores, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("score[0] = %f\n", s0);

    RT(cudaStreamDestroy(decode)); RT(cudaStreamDestroy(prefill));
    cudaFree(d_scores); cudaFree(d_q); cudaFree(d_proj);
    DRV(cuMemUnmap(decode_va, page));
    DRV(cuMemUnmap(prefill_va, page));
    DRV(cuMemRelease(kv_page));
    DRV(cuMemAddressFree(decode_va, page));
    DRV(cuMemAddressFree(prefill_va, page));
    return 0;
}
