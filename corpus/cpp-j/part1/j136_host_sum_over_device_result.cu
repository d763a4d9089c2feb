// case: a Monte Carlo pi estimator clears its hit counters with a memset sized for 64-bit counters (twice the 32-bit allocation), synchronizes the device and then sums the per-thread hit counts by looping over the cudaMalloc'd array on the host instead of copying it back first
// expect: host_deref_device_ptr=1, copy_out_of_bounds=1
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void throw_darts(unsigned long long seed, int per_thread, unsigned int* hits) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t st;
    curand_init(seed, tid, 0, &st);
    unsigned int h = 0;
    for (int k = 0; k < per_thread; ++k) {
        float x = curand_uniform(&st), y = curand_uniform(&st);
        h += (x * x + y * y <= 1.f);
    }
    hits[tid] = h;
}

int main() {
    const int blocks = 512, threads = 256, per_thread = 4096;
    const int nthreads = blocks * threads;
    unsigned int* d_hits = nullptr;
    CUDA_CHECK(cudaMalloc(&d_hits, nthreads * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemset(d_hits, 0, nthreads * sizeof(unsigned long long))); // EXPECT: copy_out_of_bounds

    throw_darts<<<blocks, threads>>>(1234ULL, per_thread, d_hits);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    unsigned long long inside = 0;
    for (int t = 0; t < nthreads; ++t)
        inside += d_hits[t]; // EXPECT: host_deref_device_ptr
    double pi = 4.0 * double(inside) / (double(nthreads) * per_thread);
    printf("pi ~= %.6f\n", pi);

    CUDA_CHECK(cudaFree(d_hits));
    return 0;
}
