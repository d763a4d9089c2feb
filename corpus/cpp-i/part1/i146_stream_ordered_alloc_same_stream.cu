// case: a radix-bucket pass allocates its temporary buffers with cudaMallocAsync through a helper and frees them with cudaFreeAsync on the same stream that used them, then synchronizes before reading the pinned counts
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void digit_of(const unsigned* keys, int n, int shift, unsigned char* digits) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) digits[i] = (keys[i] >> shift) & 0xff;
}

__global__ void bucket_count(const unsigned char* digits, int n, unsigned* counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[digits[i]], 1u);
}

template <typename T>
static void stream_alloc(T** p, size_t n, cudaStream_t s) {
    CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(p), n * sizeof(T), s));
}

static void count_digits(const unsigned* d_keys, int n, int shift, unsigned* h_counts, cudaStream_t s) {
    unsigned char* d_digits = nullptr;
    unsigned* d_counts = nullptr;
    stream_alloc(&d_digits, n, s);
    stream_alloc(&d_counts, 256, s);
    CUDA_CHECK(cudaMemsetAsync(d_counts, 0, 256 * sizeof(unsigned), s));
    digit_of<<<(n + 255) / 256, 256, 0, s>>>(d_keys, n, shift, d_digits);
    bucket_count<<<(n + 255) / 256, 256, 0, s>>>(d_digits, n, d_counts);
    CUDA_CHECK(cudaMemcpyAsync(h_counts, d_counts, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaFreeAsync(d_counts, s));
    CUDA_CHECK(cudaFreeAsync(d_digits, s));
}

int main() {
    const int n = 1 << 22;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    unsigned *h_keys, *h_counts, *d_keys;
    CUDA_CHECK(cudaMallocHost(&h_keys, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMallocHost(&h_counts, 256 * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_keys, n * sizeof(unsigned)));
    for (int i = 0; i < n; ++i) h_keys[i] = (unsigned)i * 2654435761u;
    CUDA_CHECK(cudaMemcpyAsync(d_keys, h_keys, n * sizeof(unsigned), cudaMemcpyHostToDevice, s));

    count_digits(d_keys, n, 8, h_counts, s);
    CUDA_CHECK(cudaStreamSynchronize(s));

    unsigned lo = ~0u, hi = 0;
    for (int b = 0; b < 256; ++b) {
        lo = h_counts[b] < lo ? h_counts[b] : lo;
        hi = h_counts[b] > hi ? h_counts[b] : hi;
    }
    printf("bucket sizes in [%u, %u]\n", lo, hi);

    CUDA_CHECK(cudaFree(d_keys));
    CUDA_CHECK(cudaFreeHost(h_counts));
    CUDA_CHECK(cudaFreeHost(h_keys));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
