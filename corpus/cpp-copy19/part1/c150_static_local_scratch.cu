// case: two-pass block reduction whose scratch buffer is a function-local static pointer that is never allocated: the partial-sum kernel writes through it and the finishing kernel reads it
// expect: unallocated_pointer=2
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define BLOCK 512
#define NBLOCKS 256
#define N (BLOCK * NBLOCKS)

__global__ void partial_max(const float *in, float *partial)
{
    __shared__ float s[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = in[i];
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void finish_max(const float *partial, float *out, int n)
{
    __shared__ float s[NBLOCKS];
    s[threadIdx.x] = partial[threadIdx.x];
    __syncthreads();
    for (int k = n / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = s[0];
}

float device_max(const float *d_in)
{
    static float *d_partial;
    float *d_out, result;
    cudaMalloc((void **)&d_out, sizeof(float));

    partial_max<<<NBLOCKS, BLOCK>>>(d_in, d_partial); // EXPECT: unallocated_pointer
    finish_max<<<1, NBLOCKS>>>(d_partial, d_out, NBLOCKS); // EXPECT: unallocated_pointer
    cudaMemcpy(&result, d_out, sizeof(float), cudaMemcpyDeviceToHost);

    cudaFree(d_out);
    return result;
}

int main(void)
{
    float *h = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < N; ++i) h[i] = (float)((i * 7) % 10007);

    float *d_in;
    cudaMalloc((void **)&d_in, N * sizeof(float));
    cudaMemcpy(d_in, h, N * sizeof(float), cudaMemcpyHostToDevice);

    printf("max = %f\n", device_max(d_in));

    cudaFree(d_in);
    free(h);
    return 0;
}
