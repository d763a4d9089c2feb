// case: a temporary from cudaMallocAsync on the exec stream is used by a kernel there and then released with cudaFreeAsync on a separate non-blocking dealloc stream with no event ordering it after the kernel, so the memory can be recycled while the kernel still reads it
// expect: missing_sync=1
#include "stream_pair.h"

__global__ void gather_rows(const float* table, const int* idx, float* out, int rows, int dim) {
    int r = blockIdx.x;
    if (r >= rows) return;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) out[r * dim + d] = table[idx[r] * dim + d];
}

int main() {
    const int vocab = 50000, dim = 512, rows = 4096;
    StreamPair sp;

    float *d_table, *d_out, *h_out;
    int *h_idx;
    SP_CHECK(cudaMalloc(&d_table, sizeof(float) * vocab * dim));
    SP_CHECK(cudaMemsetAsync(d_table, 0, sizeof(float) * vocab * dim, sp.exec));
    SP_CHECK(cudaMalloc(&d_out, sizeof(float) * rows * dim));
    SP_CHECK(cudaMallocHost(&h_out, sizeof(float) * rows * dim));
    SP_CHECK(cudaMallocHost(&h_idx, sizeof(int) * rows));
    for (int r = 0; r < rows; ++r) h_idx[r] = (r * 7919) % vocab;

    int* d_idx = nullptr;
    SP_CHECK(cudaMallocAsync(&d_idx, sizeof(int) * rows, sp.exec));
    SP_CHECK(cudaMemcpyAsync(d_idx, h_idx, sizeof(int) * rows, cudaMemcpyHostToDevice, sp.exec));
    gather_rows<<<rows, 128, 0, sp.exec>>>(d_table, d_idx, d_out, rows, dim);
    SP_CHECK(cudaGetLastError());
    SP_CHECK(cudaFreeAsync(d_idx, sp.dealloc)); // EXPECT: missing_sync

    SP_CHECK(cudaMemcpyAsync(h_out, d_out, sizeof(float) * rows * dim, cudaMemcpyDeviceToHost, sp.exec));
    SP_CHECK(cudaStreamSynchronize(sp.exec));
    std::printf("out[0]=%f\n", h_out[0]);

    SP_CHECK(cudaFreeHost(h_idx));
    SP_CHECK(cudaFreeHost(h_out));
    SP_CHECK(cudaFree(d_out));
    SP_CHECK(cudaFree(d_table));
    return 0;
}
