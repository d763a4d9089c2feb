// case: lookup-table interpolation where a global pointer is filled by cudaGetSymbolAddress(&g_table_ptr, c_table) before the memcpy through it and the launch; its address is taken, so it is not a never-assigned global
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define TABLE_SIZE 1024
#define NQ (1 << 20)

__device__ float c_table[TABLE_SIZE];
float *g_table_ptr;

__global__ void interp(const float *table, const float *q, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = q[i] * (TABLE_SIZE - 1);
    int k = min(int(t), TABLE_SIZE - 2);
    float f = t - k;
    out[i] = (1.f - f) * table[k] + f * table[k + 1];
}

int main()
{
    float h_table[TABLE_SIZE];
    for (int k = 0; k < TABLE_SIZE; ++k) h_table[k] = std::erf(4.0f * k / (TABLE_SIZE - 1) - 2.0f);
    float *h_q = (float *)std::malloc(NQ * sizeof(float));
    float *h_out = (float *)std::malloc(NQ * sizeof(float));
    for (int i = 0; i < NQ; ++i) h_q[i] = float(i) / NQ;

    if (cudaGetSymbolAddress((void **)&g_table_ptr, c_table) != cudaSuccess) {
        std::fprintf(stderr, "no symbol\n");
        return 1;
    }
    cudaMemcpy(g_table_ptr, h_table, sizeof(h_table), cudaMemcpyHostToDevice);

    float *d_q, *d_out;
    cudaMalloc(&d_q, NQ * sizeof(float));
    cudaMalloc(&d_out, NQ * sizeof(float));
    cudaMemcpy(d_q, h_q, NQ * sizeof(float), cudaMemcpyHostToDevice);

    interp<<<NQ / 256, 256>>>(g_table_ptr, d_q, d_out, NQ);
    cudaMemcpy(h_out, d_out, NQ * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("erf table at 0.5 -> %f\n", h_out[NQ / 2]);

    cudaFree(d_q);
    cudaFree(d_out);
    std::free(h_q);
    std::free(h_out);
    return 0;
}
