// case: A two-pass reduction in the CUDA samples' style wraps calls in checkCudaErrors and follows each launch with getLastCudaError, both from helper_cuda.h, which the file does not show.
// expect: none
#include <cuda_runtime.h>
#include <helper_cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void reduce_max(const float* in, float* out, int n) {
    __shared__ float sdata[512];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < n) ? in[i] : -1e30f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s && sdata[tid + s] > sdata[tid]) sdata[tid] = sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

int main(int argc, char** argv) {
    int dev = findCudaDevice(argc, (const char**)argv);
    const int n = 1 << 24;
    const int threads = 512;
    const int blocks = (n + threads - 1) / threads;

    std::vector<float> h_in(n);
    for (int i = 0; i < n; ++i) h_in[i] = float((i * 7919) % 100003);

    float *d_in, *d_partial, *d_result;
    checkCudaErrors(cudaMalloc(&d_in, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d_partial, blocks * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d_result, sizeof(float)));
    checkCudaErrors(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    reduce_max<<<blocks, threads>>>(d_in, d_partial, n);
    getLastCudaError("reduce_max (pass 1) failed");
    reduce_max<<<1, threads>>>(d_partial, d_result, blocks < threads ? blocks : threads);
    getLastCudaError("reduce_max (pass 2) failed");
    checkCudaErrors(cudaDeviceSynchronize());

    float h_result = 0.0f;
    checkCudaErrors(cudaMemcpy(&h_result, d_result, sizeof(float), cudaMemcpyDeviceToHost));
    printf("device %d: max of the first %d partial maxima = %.0f\n", dev, threads, h_result);

    checkCudaErrors(cudaFree(d_result));
    checkCudaErrors(cudaFree(d_partial));
    checkCudaErrors(cudaFree(d_in));
    return 0;
}
