// case: A shared-memory sum reduction copies its per-block partial sums back with a checked blocking cudaMemcpy but never asks cudaGetLastError about the launch.
// expect: unchecked_cuda_result=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) {
        fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
        exit(1);
    }
}

__global__ void reduce_sum(const float* in, float* partial, int n) {
    __shared__ float cache[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + tid;
    float v = 0.0f;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    cache[tid] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) cache[tid] += cache[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = cache[0];
}

double gpu_sum(const std::vector<float>& h_in) {
    const int n = (int)h_in.size();
    const int threads = 256;
    const int blocks = (n + threads * 2 - 1) / (threads * 2);
    float* d_in = nullptr;
    float* d_partial = nullptr;
    check(cudaMalloc(&d_in, n * sizeof(float)), "cudaMalloc(d_in)");
    check(cudaMalloc(&d_partial, blocks * sizeof(float)), "cudaMalloc(d_partial)");
    check(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice), "upload");

    reduce_sum<<<blocks, threads>>>(d_in, d_partial, n);  // EXPECT: unchecked_cuda_result

    std::vector<float> partial(blocks);
    check(cudaMemcpy(partial.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost),
          "download partial sums");
    double total = 0.0;
    for (float p : partial) total += p;

    check(cudaFree(d_partial), "cudaFree(d_partial)");
    check(cudaFree(d_in), "cudaFree(d_in)");
    return total;
}

int main() {
    std::vector<float> data(1 << 22);
    for (size_t i = 0; i < data.size(); ++i) data[i] = 1.0f / float(1 + i % 100);
    double gpu = gpu_sum(data);
    double cpu = 0.0;
    for (float v : data) cpu += v;
    printf("gpu %.4f cpu %.4f\n", gpu, cpu);
    return 0;
}
