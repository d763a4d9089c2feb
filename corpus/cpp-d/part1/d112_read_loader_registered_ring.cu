// case: sequencing-read loader that streams a genome through one cudaHostRegister'ed staging vector: each iteration refills the staging buffer with memcpy while the previous iteration's cudaMemcpyAsync may still be reading it (registered memory, unlike a pageable source, is read by the DMA after the call returns), with no wait until after the loop.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

constexpr size_t kChunk = 4u << 20;
constexpr int kChunks = 16;

__global__ void gc_count(const char* bases, size_t n, unsigned long long* gc)
{
    __shared__ unsigned int local;
    if (threadIdx.x == 0) local = 0;
    __syncthreads();
    unsigned int mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        char b = bases[i];
        mine += (b == 'G' || b == 'C');
    }
    atomicAdd(&local, mine);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(gc, (unsigned long long)local);
}

static std::vector<char> synth_genome(size_t n)
{
    static const char alphabet[4] = {'A', 'C', 'G', 'T'};
    std::vector<char> g(n);
    unsigned int x = 12345u;
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        g[i] = alphabet[x & 3];
    }
    return g;
}

int main()
{
    std::vector<char> genome = synth_genome(kChunk * kChunks);
    std::vector<char> staging(kChunk);
    CUDA_CHECK(cudaHostRegister(staging.data(), kChunk, cudaHostRegisterDefault));

    char* d_chunk = nullptr;
    unsigned long long* d_gc = nullptr;
    CUDA_CHECK(cudaMalloc(&d_chunk, kChunk));
    CUDA_CHECK(cudaMalloc(&d_gc, kChunks * sizeof(unsigned long long)));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemsetAsync(d_gc, 0, kChunks * sizeof(unsigned long long), s));

    for (int c = 0; c < kChunks; ++c) {
        std::memcpy(staging.data(), genome.data() + (size_t)c * kChunk, kChunk); // EXPECT: missing_sync
        CUDA_CHECK(cudaMemcpyAsync(d_chunk, staging.data(), kChunk, cudaMemcpyHostToDevice, s));
        gc_count<<<256, 256, 0, s>>>(d_chunk, kChunk, d_gc + c);
    }
    CUDA_CHECK(cudaStreamSynchronize(s));

    unsigned long long gc[kChunks];
    CUDA_CHECK(cudaMemcpy(gc, d_gc, sizeof(gc), cudaMemcpyDeviceToHost));
    unsigned long long total = 0;
    for (unsigned long long v : gc) total += v;
    printf("GC content: %.3f%%\n", 100.0 * total / (double)(kChunk * kChunks));

    CUDA_CHECK(cudaHostUnregister(staging.data()));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_chunk));
    CUDA_CHECK(cudaFree(d_gc));
    return 0;
}
