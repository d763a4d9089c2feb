// case: KV-cache compaction maps one physical block at two virtual addresses (a writer view and a reader view, each given access in a header helper) and the single kernel that writes through one and reads through the other issues fence.proxy.alias in between; teardown unmaps before freeing the ranges.
// expect: none
#include "vmm_views.h"
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <vector>

__global__ void compact_kv(__half* writer, const __half* reader, float* norms, const int* keep, int tokens, int dim)
{
    int t = blockIdx.x;
    if (t >= tokens) return;
    int src = keep[t];
    for (int d = threadIdx.x; d < dim; d += blockDim.x)
        writer[(size_t)t * dim + d] = __float2half(__half2float(writer[(size_t)src * dim + d]) * 0.5f);
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        float acc = 0.f;
        for (int d = 0; d < dim; ++d) { float v = __half2float(reader[(size_t)t * dim + d]); acc += v * v; }
        norms[t] = sqrtf(acc);
    }
}

int main()
{
    CU_CHECK(cuInit(0));
    cudaFree(0);                                   // make the runtime's primary context current
    const int tokens = 4096, dim = 128;
    size_t size = (size_t)tokens * dim * sizeof(__half);
    CUmemGenericAllocationHandle block = create_physical(&size, 0);

    CUdeviceptr wview = map_view(block, size, 0);
    CUdeviceptr rview = map_view(block, size, 0);

    std::vector<int> keep(tokens);
    for (int t = 0; t < tokens; ++t) keep[t] = (t * 3) % tokens < t ? (t * 3) % tokens : t;
    int* d_keep; float* d_norms;
    cudaMalloc(&d_keep, tokens * sizeof(int));
    cudaMalloc(&d_norms, tokens * sizeof(float));
    cudaMemcpy(d_keep, keep.data(), tokens * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset((void*)wview, 0, size);

    compact_kv<<<tokens, 128>>>((__half*)wview, (const __half*)rview, d_norms, d_keep, tokens, dim);

    std::vector<float> norms(tokens);
    cudaMemcpy(norms.data(), d_norms, tokens * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("norm[17] = %f\n", norms[17]);

    cudaFree(d_norms);
    cudaFree(d_keep);
    unmap_view(rview, size);
    unmap_view(wview, size);
    CU_CHECK(cuMemRelease(block));
    return 0;
}
