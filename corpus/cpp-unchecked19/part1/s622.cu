// case: A scratch-space kernel shrinks its workspace after failed cudaMalloc calls, clearing the error with a bare cudaGetLastError(), polls cudaStreamQuery in a loop condition and checks its launch with cudaPeekAtLastError.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));        \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

__global__ void fill_pattern(unsigned int* buf, size_t words, unsigned int seed) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t stride = size_t(gridDim.x) * blockDim.x;
    for (; i < words; i += stride) buf[i] = (unsigned int)(i * 2654435761u) ^ seed;
}

int main() {
    if (cudaError_t e = cudaSetDevice(0); e != cudaSuccess) {
        fprintf(stderr, "no usable device: %s\n", cudaGetErrorName(e));
        return 1;
    }

    size_t bytes = size_t(8) << 30;  // try 8 GiB, halve until it fits
    unsigned int* d_work = nullptr;
    while (cudaMalloc(&d_work, bytes) != cudaSuccess) {
        cudaGetLastError();  // clear the allocation failure before retrying
        bytes /= 2;
        if (bytes < (size_t(64) << 20)) {
            fprintf(stderr, "could not allocate a workspace\n");
            return 1;
        }
    }
    const size_t words = bytes / sizeof(unsigned int);
    printf("workspace: %zu MiB\n", bytes >> 20);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    fill_pattern<<<1024, 256, 0, s>>>(d_work, words, 0x5eedu);
    CUDA_CHECK(cudaPeekAtLastError());

    long spins = 0;
    while (cudaStreamQuery(s) == cudaErrorNotReady) ++spins;
    CUDA_CHECK(cudaStreamSynchronize(s));

    unsigned int first = 0;
    CUDA_CHECK(cudaMemcpy(&first, d_work, sizeof(first), cudaMemcpyDeviceToHost));
    printf("first word %08x after %ld polls\n", first, spins);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_work));
    return 0;
}
