// unchecked_cuda_result (fixed): the launch is checked with cudaGetLastError right after it,
// which reports the bad configuration; the program launches again with a valid one.
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
    cudaError_t launch = cudaGetLastError();
    if (launch != cudaSuccess) {
        printf("unchecked_cuda_result_fixed: the launch failed (\"%s\"); launching with 1024 threads\n",
               cudaGetErrorString(launch));
        fill<<<N / 1024, 1024>>>(d, N);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    int* h = (int*)malloc(N * sizeof(int));
    CHECK(cudaMemcpy(h, d, N * sizeof(int), cudaMemcpyDeviceToHost));
    int right = 0;
    for (int i = 0; i < N; ++i) right += h[i] == 7;
    printf("unchecked_cuda_result_fixed: %d of %d results written\n", right, N);
    CHECK(cudaFree(d));
    free(h);
    return 0;
}
