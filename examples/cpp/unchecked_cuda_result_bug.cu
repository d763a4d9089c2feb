// unchecked_cuda_result (bug): a launch asks for 2048 threads per block, over the device's limit
// of 1024. It fails at once, and only cudaGetLastError would say so: the synchronization after it
// returns success, and the host reads results the kernel never wrote.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define N (1 << 20)
#define THREADS 2048

__global__ void fill(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 7;
}

int main() {
    int* d;
    CHECK(cudaMalloc(&d, N * sizeof(int)));
    CHECK(cudaMemset(d, 0, N * sizeof(int)));
    fill<<<N / THREADS, THREADS>>>(d, N);
    cudaError_t sync = cudaDeviceSynchronize();
    int* h = (int*)malloc(N * sizeof(int));
    CHECK(cudaMemcpy(h, d, N * sizeof(int), cudaMemcpyDeviceToHost));
    int right = 0;
    for (int i = 0; i < N; ++i) right += h[i] == 7;
    printf("unchecked_cuda_result_bug: %d of %d results written; cudaDeviceSynchronize said \"%s\"\n", right, N,
           cudaGetErrorString(sync));
    CHECK(cudaFree(d));
    free(h);
    return 0;
}
