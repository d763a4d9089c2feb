// case: a helper builds a device lookup table using a scratch buffer; its error macro returns the status early, and the return after the kernel launch check loses the scratch allocation on that path
// expect: device_memory_leak=1
#include <cuda_runtime.h>
#include <cstdio>

#define RETURN_IF_ERROR(expr)                     \
    do {                                          \
        cudaError_t status_ = (expr);             \
        if (status_ != cudaSuccess) return status_; \
    } while (0)

__global__ void gen_keys(unsigned* scratch, int n, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scratch[i] = (i * 2654435761u) ^ seed;
}

__global__ void fold_keys(const unsigned* scratch, unsigned* table, int n, int buckets) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&table[scratch[i] % buckets], 1u);
}

cudaError_t build_lookup_table(unsigned** table_out, int n, int buckets, unsigned seed) {
    RETURN_IF_ERROR(cudaMalloc(table_out, buckets * sizeof(unsigned)));
    RETURN_IF_ERROR(cudaMemset(*table_out, 0, buckets * sizeof(unsigned)));

    unsigned* scratch = nullptr;
    RETURN_IF_ERROR(cudaMalloc(&scratch, n * sizeof(unsigned)));
    gen_keys<<<(n + 255) / 256, 256>>>(scratch, n, seed);
    RETURN_IF_ERROR(cudaGetLastError()); // EXPECT: device_memory_leak
    fold_keys<<<(n + 255) / 256, 256>>>(scratch, *table_out, n, buckets);
    cudaError_t st = cudaGetLastError();
    cudaFree(scratch);
    return st;
}

int main() {
    const int n = 1 << 22, buckets = 4096;
    unsigned* d_table = nullptr;
    cudaError_t st = build_lookup_table(&d_table, n, buckets, 0x9e3779b9u);
    if (st != cudaSuccess) {
        fprintf(stderr, "build failed: %s\n", cudaGetErrorString(st));
        return 1;
    }
    unsigned h_table[4096];
    if (cudaMemcpy(h_table, d_table, sizeof(h_table), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    unsigned long long sum = 0;
    for (int b = 0; b < buckets; ++b) sum += h_table[b];
    printf("sum of buckets %llu (expected %d)\n", sum, n);
    cudaFree(d_table);
    return 0;
}
