// case: a matrix-transpose benchmark returns EXIT_FAILURE from main when verification fails, before the cudaFree calls for its input and output matrices
// expect: device_memory_leak=2
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8
#define NX 4096
#define NY 4096
#define NUM_REPS 100

__global__ void transpose_coalesced(float* odata, const float* idata) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    int width = gridDim.x * TILE_DIM;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(void) {
    const int mem_size = NX * NY * sizeof(float);
    dim3 grid(NX / TILE_DIM, NY / TILE_DIM);
    dim3 threads(TILE_DIM, BLOCK_ROWS);

    float* h_idata = (float*)malloc(mem_size);
    float* h_tdata = (float*)malloc(mem_size);
    float *d_idata, *d_tdata;
    cudaMalloc(&d_idata, mem_size); // EXPECT: device_memory_leak
    cudaMalloc(&d_tdata, mem_size); // EXPECT: device_memory_leak

    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            h_idata[j * NX + i] = j * NX + i;
    cudaMemcpy(d_idata, h_idata, mem_size, cudaMemcpyHostToDevice);

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    transpose_coalesced<<<grid, threads>>>(d_tdata, d_idata);
    cudaEventRecord(start, 0);
    for (int i = 0; i < NUM_REPS; i++)
        transpose_coalesced<<<grid, threads>>>(d_tdata, d_idata);
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    cudaMemcpy(h_tdata, d_tdata, mem_size, cudaMemcpyDeviceToHost);

    for (int j = 0; j < NY; j++) {
        for (int i = 0; i < NX; i++) {
            if (h_tdata[j * NX + i] != h_idata[i * NX + j]) {
                printf("mismatch at (%d, %d)\n", i, j);
                free(h_idata);
                free(h_tdata);
                return EXIT_FAILURE;
            }
        }
    }
    printf("transpose: %.2f GB/s\n", 2.0 * mem_size * NUM_REPS / (ms * 1e6));

    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(d_idata);
    cudaFree(d_tdata);
    free(h_idata);
    free(h_tdata);
    return 0;
}
