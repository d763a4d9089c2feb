// case: a min/max reduction kernel writes both d_min and d_max, but only the minimum is copied back; the maximum the kernel computed is freed unread while the host prints a placeholder.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <float.h>

#define CUDA_CHECK(x) { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } }

#define N (1 << 20)
#define BS 256

__device__ float atomicMinFloat(float* addr, float v)
{
    int* a = (int*)addr;
    int old = *a, assumed;
    do { assumed = old; old = atomicCAS(a, assumed, __float_as_int(fminf(v, __int_as_float(assumed)))); } while (assumed != old);
    return __int_as_float(old);
}

__device__ float atomicMaxFloat(float* addr, float v)
{
    int* a = (int*)addr;
    int old = *a, assumed;
    do { assumed = old; old = atomicCAS(a, assumed, __float_as_int(fmaxf(v, __int_as_float(assumed)))); } while (assumed != old);
    return __int_as_float(old);
}

__global__ void minmax(const float* data, float* out_min, float* out_max, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMinFloat(out_min, data[i]);
        atomicMaxFloat(out_max, data[i]);
    }
}

int main(void)
{
    float* h = (float*)malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) h[i] = (float)((i * 7919) % 10007) - 5000.0f;
    float init_min = FLT_MAX, init_max = -FLT_MAX;

    float *d_data, *d_min, *d_max;
    CUDA_CHECK(cudaMalloc((void**)&d_data, N * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void**)&d_min, sizeof(float)));
    CUDA_CHECK(cudaMalloc((void**)&d_max, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_data, h, N * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_min, &init_min, sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_max, &init_max, sizeof(float), cudaMemcpyHostToDevice));

    minmax<<<(N + BS - 1) / BS, BS>>>(d_data, d_min, d_max, N);
    CUDA_CHECK(cudaGetLastError());

    float mn = 0.0f, mx = 0.0f;
    CUDA_CHECK(cudaMemcpy(&mn, d_min, sizeof(float), cudaMemcpyDeviceToHost));
    printf("range: [%f, %f]\n", mn, mx);

    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(d_min));
    CUDA_CHECK(cudaFree(d_max)); // EXPECT: unread_kernel_output
    free(h);
    return 0;
}
