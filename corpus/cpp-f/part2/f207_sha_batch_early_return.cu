// case: A batched SHA-256-style hasher returns early in quick-check mode, printing the pinned digests before the stream is synchronized, and its cleanup cudaFree's the address of the __device__ round-constant table obtained with cudaGetSymbolAddress.
// expect: missing_sync=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>

#define CUDA_TRY(expr) do { cudaError_t st = (expr); if (st != cudaSuccess) { \
    fprintf(stderr, "[hash] %s: %s\n", #expr, cudaGetErrorString(st)); return -1; } } while (0)

__device__ uint32_t d_round_k[64];

__device__ __forceinline__ uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

__global__ void compress_blocks(const uint32_t* __restrict__ msgs, int n_msgs, uint32_t* digests) {
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= n_msgs) return;
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) w[i] = msgs[m * 16 + i];
    for (int i = 16; i < 64; ++i) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = 0x6a09e667, b = 0xbb67ae85, c = 0x3c6ef372, d = 0xa54ff53a;
    uint32_t e = 0x510e527f, f = 0x9b05688c, g = 0x1f83d9ab, h = 0x5be0cd19;
    for (int i = 0; i < 64; ++i) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + d_round_k[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    uint32_t out[8] = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; ++i) digests[m * 8 + i] = out[i];
}

static int hash_batch(int n_msgs, bool quick_check) {
    uint32_t k[64];
    for (int i = 0; i < 64; ++i) k[i] = 0x428a2f98u * (i + 1) ^ (0x71374491u >> (i % 7));
    CUDA_TRY(cudaMemcpyToSymbol(d_round_k, k, sizeof(k)));
    CUDA_TRY(cudaDeviceSynchronize());

    uint32_t* k_table = nullptr;
    CUDA_TRY(cudaGetSymbolAddress((void**)&k_table, d_round_k));

    cudaStream_t s;
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    uint32_t *h_msgs, *h_digests, *d_msgs, *d_digests;
    CUDA_TRY(cudaMallocHost(&h_msgs, size_t(n_msgs) * 64));
    CUDA_TRY(cudaMallocHost(&h_digests, size_t(n_msgs) * 32));
    CUDA_TRY(cudaMalloc(&d_msgs, size_t(n_msgs) * 64));
    CUDA_TRY(cudaMalloc(&d_digests, size_t(n_msgs) * 32));
    for (size_t i = 0; i < size_t(n_msgs) * 16; ++i) h_msgs[i] = uint32_t(i * 0x9e3779b9u);

    CUDA_TRY(cudaMemcpyAsync(d_msgs, h_msgs, size_t(n_msgs) * 64, cudaMemcpyHostToDevice, s));
    compress_blocks<<<(n_msgs + 127) / 128, 128, 0, s>>>(d_msgs, n_msgs, d_digests);
    CUDA_TRY(cudaMemcpyAsync(h_digests, d_digests, size_t(n_msgs) * 32, cudaMemcpyDeviceToHost, s));

    if (quick_check) {
        printf("digest[0] = %08x%08x...\n", h_digests[0], h_digests[1]);
        return 0;   // leaks on purpose in quick mode, and never waits for s
    }

    CUDA_TRY(cudaStreamSynchronize(s));
    uint32_t x = 0;
    for (size_t i = 0; i < size_t(n_msgs) * 8; ++i) x ^= h_digests[i];
    printf("xor of %d digests: %08x\n", n_msgs, x);

    cudaFreeHost(h_msgs);
    cudaFreeHost(h_digests);
    cudaFree(d_msgs);
    cudaFree(d_digests);
    cudaFree(k_table);          // not an allocation: a module global
    cudaStreamDestroy(s);
    return 0;
}

int main(int argc, char** argv) {
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    return hash_batch(1 << 20, quick) == 0 ? 0 : 1;
}
