// case: An audio convolution reverb picks its host buffers with #ifdef USE_PINNED_STAGING, which this file never defines, so the default build streams 4 MiB blocks to and from malloc'd memory with cudaMemcpyAsync; reading the output right after the pageable D2H call is itself correct.
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

// #define USE_PINNED_STAGING   /* enable once the pinned-memory budget is sorted out */

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

#define BLOCK_FRAMES (1 << 20)
#define IR_LEN 2048

__global__ void convolve_block(const float* in, const float* ir, float* out, int n, int ir_len)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int k = 0; k < ir_len && k <= i; ++k) acc += in[i - k] * ir[k];
    out[i] = acc;
}

int main(void)
{
    const size_t bytes = BLOCK_FRAMES * sizeof(float);
    float *h_in, *h_out, *d_in, *d_out, *d_ir;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

#ifdef USE_PINNED_STAGING
    CUDA_CHECK(cudaMallocHost((void**)&h_in, bytes));
    CUDA_CHECK(cudaMallocHost((void**)&h_out, bytes));
#else
    h_in = (float*)malloc(bytes);
    h_out = (float*)malloc(bytes);
#endif
    CUDA_CHECK(cudaMalloc((void**)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void**)&d_out, bytes));
    CUDA_CHECK(cudaMalloc((void**)&d_ir, IR_LEN * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_ir, 0, IR_LEN * sizeof(float), s));

    double energy = 0.0;
    for (int blk = 0; blk < 16; ++blk) {
        for (int i = 0; i < BLOCK_FRAMES; ++i) h_in[i] = sinf(0.001f * (float)(blk * BLOCK_FRAMES + i));
        CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s)); // EXPECT: pageable_async_copy
        convolve_block<<<BLOCK_FRAMES / 256, 256, 0, s>>>(d_in, d_ir, d_out, BLOCK_FRAMES, IR_LEN);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s)); // EXPECT: pageable_async_copy
        /* device -> pageable: the call returns only once the copy has completed */
        for (int i = 0; i < BLOCK_FRAMES; i += 64) energy += (double)h_out[i] * h_out[i];
    }
    printf("output energy %g\n", energy);

    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaFree(d_ir));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
#ifdef USE_PINNED_STAGING
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
#else
    free(h_out);
    free(h_in);
#endif
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
