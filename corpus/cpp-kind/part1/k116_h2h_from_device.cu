// case: a Monte Carlo pi estimator copies the per-block hit counts out of a cudaMalloc buffer with cudaMemcpyHostToHost, naming device memory as a host source.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cstdlib>
#include <curand_kernel.h>

__global__ void darts(unsigned long long seed, int perThread, unsigned int* hits) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    curandState st;
    curand_init(seed, tid, 0, &st);
    unsigned int local = 0;
    for (int i = 0; i < perThread; ++i) {
        float x = curand_uniform(&st), y = curand_uniform(&st);
        local += (x * x + y * y <= 1.f);
    }
    atomicAdd(&hits[blockIdx.x], local);
}

int main() {
    const int blocks = 128, threads = 256, perThread = 4096;
    unsigned int* d_hits;
    cudaMalloc(&d_hits, blocks * sizeof(unsigned int));
    cudaMemset(d_hits, 0, blocks * sizeof(unsigned int));
    unsigned int* hits = (unsigned int*)calloc(blocks, sizeof(unsigned int));

    darts<<<blocks, threads>>>(1234ULL, perThread, d_hits);
    cudaDeviceSynchronize();
    cudaMemcpy(hits, d_hits, blocks * sizeof(unsigned int), cudaMemcpyHostToHost); // EXPECT: memcpy_kind_mismatch

    unsigned long long total = 0;
    for (int b = 0; b < blocks; ++b) total += hits[b];
    double pi = 4.0 * total / ((double)blocks * threads * perThread);
    printf("pi ~ %.6f\n", pi);

    cudaFree(d_hits);
    free(hits);
    return 0;
}
