// case: a matrix transpose benchmark downloads its result with the destination and source of cudaMemcpy in the right order but the kind copied from the upload line (HostToDevice), so the stated direction contradicts a host destination and device source
// expect: memcpy_kind_mismatch=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define TILE 32
#define N 2048

#define checkCuda(r) do { if ((r) != cudaSuccess) { \
    fprintf(stderr, "CUDA Runtime Error: %s\n", cudaGetErrorString(r)); exit(1); } } while (0)

__global__ void transpose_tiled(float* out, const float* in) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * N + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * N + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
    const size_t bytes = size_t(N) * N * sizeof(float);
    float* h_in = (float*)malloc(bytes);
    float* h_out = (float*)malloc(bytes);
    for (int i = 0; i < N * N; ++i) h_in[i] = (float)i;

    float *d_in, *d_out;
    checkCuda(cudaMalloc(&d_in, bytes));
    checkCuda(cudaMalloc(&d_out, bytes));
    checkCuda(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    dim3 grid(N / TILE, N / TILE), block(TILE, TILE);
    transpose_tiled<<<grid, block>>>(d_out, d_in);
    checkCuda(cudaGetLastError());

    checkCuda(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyHostToDevice)); // EXPECT: memcpy_kind_mismatch

    int errors = 0;
    for (int r = 0; r < N && errors < 10; ++r)
        for (int c = 0; c < N; ++c)
            if (h_out[r * N + c] != h_in[c * N + r]) { ++errors; break; }
    printf("%s\n", errors ? "FAILED" : "PASSED");

    checkCuda(cudaFree(d_out));
    checkCuda(cudaFree(d_in));
    free(h_out);
    free(h_in);
    return 0;
}
