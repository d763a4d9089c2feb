// case: a PageRank driver packs its CSR graph into one VMM-backed RAII buffer (to share it with peer GPUs later) whose destructor releases the handle and frees the reserved range without ever calling cuMemUnmap
// expect: vmm_lifecycle=1
#include "vmm_buffer.h"
#include <cuda_runtime.h>
#include <utility>
#include <vector>

__global__ void pull_rank(const int* row_ptr, const int* cols, const int* out_deg, const float* rank,
                          float* next, int n, float damping) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float s = 0.f;
    for (int k = row_ptr[v]; k < row_ptr[v + 1]; ++k) {
        int u = cols[k];
        s += rank[u] / out_deg[u];
    }
    next[v] = (1.f - damping) / n + damping * s;
}

int main() {
    CHECK_CU(cuInit(0));
    CUdevice dev; CHECK_CU(cuDeviceGet(&dev, 0));
    CUcontext ctx; CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev)); CHECK_CU(cuCtxSetCurrent(ctx));

    // ring lattice: v <- v-1, v-2 (in-edges), each vertex has out-degree 2
    const int n = 1 << 22, m = 2 * n;
    std::vector<int> packed((size_t)(n + 1) + m + n);      // row_ptr | cols | out_deg
    int* row_ptr = packed.data();
    int* cols = row_ptr + (n + 1);
    int* deg = cols + m;
    for (int v = 0; v < n; ++v) {
        row_ptr[v] = 2 * v;
        cols[2 * v] = (v + n - 1) % n;
        cols[2 * v + 1] = (v + n - 2) % n;
        deg[v] = 2;
    }
    row_ptr[n] = m;
    std::vector<float> rank(n, 1.f / n);

    float *d_rank = nullptr, *d_next = nullptr;
    cudaMalloc(&d_rank, n * sizeof(float));
    cudaMalloc(&d_next, n * sizeof(float));

    float checksum = 0.f;
    {
        VmmBuffer graph(0, packed.size() * sizeof(int));
        CHECK_CU(cuMemcpyHtoD(graph.ptr(), packed.data(), packed.size() * sizeof(int)));
        cudaMemcpy(d_rank, rank.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        CHECK_CU(cuCtxSynchronize());

        const int* g_row = graph.as<int>();
        const int* g_cols = g_row + (n + 1);
        const int* g_deg = g_cols + m;
        float* cur = d_rank;
        float* nxt = d_next;
        for (int it = 0; it < 30; ++it) {
            pull_rank<<<(n + 255) / 256, 256>>>(g_row, g_cols, g_deg, cur, nxt, n, 0.85f);
            std::swap(cur, nxt);
        }
        cudaMemcpy(rank.data(), cur, n * sizeof(float), cudaMemcpyDeviceToHost);
        CHECK_CU(cuCtxSynchronize());
        for (int v = 0; v < n; v += 4096) checksum += rank[v];
    }   // graph released here

    std::printf("pagerank sample sum %.6e\n", checksum);
    cudaFree(d_next);
    cudaFree(d_rank);
    CHECK_CU(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
