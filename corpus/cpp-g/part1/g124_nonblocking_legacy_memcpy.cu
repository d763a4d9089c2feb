// case: The reduction kernel runs on a cudaStreamNonBlocking stream, and the plain cudaMemcpy that reads its partial sums runs on the legacy default stream, which does not wait for non-blocking streams, so the copy can read d_partial while the kernel still writes it.
// expect: missing_sync=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N          (1 << 24)
#define THREADS    256
#define BLOCKS     1024
#define CUDA_SAFE_CALL(call) do { cudaError_t err = call; if (cudaSuccess != err) { \
    fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
    exit(EXIT_FAILURE); } } while (0)

__global__ void reduce_partial(const float *in, float *partial, int n)
{
    __shared__ float sdata[THREADS];
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sdata[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sdata[0];
}

__global__ void fill_ones(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}

int main(void)
{
    float *d_in, *d_partial, *h_partial;
    cudaStream_t stream;
    double total = 0.0;

    CUDA_SAFE_CALL(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_SAFE_CALL(cudaMalloc((void **)&d_in, N * sizeof(float)));
    CUDA_SAFE_CALL(cudaMalloc((void **)&d_partial, BLOCKS * sizeof(float)));
    h_partial = (float *)malloc(BLOCKS * sizeof(float));

    fill_ones<<<(N + THREADS - 1) / THREADS, THREADS, 0, stream>>>(d_in, N);
    reduce_partial<<<BLOCKS, THREADS, 0, stream>>>(d_in, d_partial, N);

    CUDA_SAFE_CALL(cudaMemcpy(h_partial, d_partial, BLOCKS * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++) total += h_partial[b];
    printf("sum = %.0f (expected %d)\n", total, N);

    CUDA_SAFE_CALL(cudaStreamSynchronize(stream));
    CUDA_SAFE_CALL(cudaStreamDestroy(stream));
    cudaFree(d_partial);
    cudaFree(d_in);
    free(h_partial);
    return 0;
}
