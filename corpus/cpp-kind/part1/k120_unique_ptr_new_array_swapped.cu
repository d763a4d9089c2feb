// case: a prefix-sum benchmark keeps its host arrays in std::unique_ptr<int[]> (new[]) and its device arrays from cudaMalloc; the input upload passes the unique_ptr buffer as the destination of a HostToDevice copy.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <memory>
#include <cuda_runtime.h>

__global__ void blockScan(const int* in, int* out, int n) {
    __shared__ int tmp[512];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tmp[threadIdx.x] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        int v = (threadIdx.x >= off) ? tmp[threadIdx.x - off] : 0;
        __syncthreads();
        tmp[threadIdx.x] += v;
        __syncthreads();
    }
    if (i < n) out[i] = tmp[threadIdx.x];
}

int main() {
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(int);
    std::unique_ptr<int[]> input(new int[n]);
    std::unique_ptr<int[]> output(new int[n]);
    for (int i = 0; i < n; ++i) input[i] = 1;

    int *d_in = nullptr, *d_out = nullptr;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);

    cudaMemcpy(input.get(), d_in, bytes, cudaMemcpyHostToDevice); // EXPECT: memcpy_kind_mismatch
    blockScan<<<n / 512, 512>>>(d_in, d_out, n);
    cudaMemcpy(output.get(), d_out, bytes, cudaMemcpyDeviceToHost);

    printf("out[511] = %d (expect 512)\n", output[511]);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
