// case: a particle-in-cell code stages particle positions upward through one write-combined buffer (host writes only) and reads the deposited charge grid back into a second write-combined buffer from the header helper, then sums it on the host.
// expect: write_combined_host_read=1
#include "drv_util.h"
#include <cuda_runtime.h>

__global__ void deposit_charge(const float* x, int n, float* rho, int cells, float dx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float cell = x[i] / dx;
    int c = (int)cell;
    float f = cell - c;
    if (c >= 0 && c + 1 < cells) {
        atomicAdd(&rho[c], 1.f - f);
        atomicAdd(&rho[c + 1], f);
    }
}

int main() {
    DriverContext drv(0);
    const int n = 1 << 22, cells = 1 << 16;
    const float length = 1.0f, dx = length / cells;

    float* h_pos = alloc_host_wc(n);
    float* h_rho = alloc_host_wc(cells);
    for (int i = 0; i < n; ++i) h_pos[i] = length * (float)((i * 40503u) & 0xffff) / 65536.f;

    CUdeviceptr d_pos, d_rho;
    CU_CHECK(cuMemAlloc(&d_pos, n * sizeof(float)));
    CU_CHECK(cuMemAlloc(&d_rho, cells * sizeof(float)));
    CUstream s;
    CU_CHECK(cuStreamCreate(&s, CU_STREAM_DEFAULT));

    CU_CHECK(cuMemcpyHtoDAsync(d_pos, h_pos, n * sizeof(float), s));
    CU_CHECK(cuMemsetD32Async(d_rho, 0, cells, s));
    deposit_charge<<<(n + 255) / 256, 256, 0, (cudaStream_t)s>>>(
        (const float*)d_pos, n, (float*)d_rho, cells, dx);
    CU_CHECK(cuMemcpyDtoHAsync(h_rho, d_rho, cells * sizeof(float), s));
    CU_CHECK(cuStreamSynchronize(s));

    double total = 0.0;
    for (int c = 0; c < cells; ++c) total += h_rho[c];
    std::printf("deposited charge %.1f (expected %d)\n", total, n);

    CU_CHECK(cuStreamDestroy(s));
    CU_CHECK(cuMemFree(d_rho));
    CU_CHECK(cuMemFree(d_pos));
    free_host(h_rho);
    free_host(h_pos);
    return 0;
}
