// case: a stream enqueues a host function with cudaLaunchHostFunc after the pinned download, so the callback reads the result in stream order; main synchronizes the stream before freeing, and an early validation return frees everything
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void count_primes(const unsigned* cand, int n, unsigned* flags) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = cand[i];
    unsigned prime = v >= 2;
    for (unsigned d = 2; d * d <= v && prime; ++d) prime = (v % d) != 0;
    flags[i] = prime;
}

struct Report {
    const unsigned* flags;
    int n;
    long primes;
};

static void CUDART_CB tally(void* user) {
    Report* r = static_cast<Report*>(user);
    long c = 0;
    for (int i = 0; i < r->n; ++i) c += r->flags[i];
    r->primes = c;
}

static int run(int n, unsigned first) {
    unsigned *h_cand, *h_flags, *d_cand, *d_flags;
    CUDA_CHECK(cudaMallocHost(&h_cand, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMallocHost(&h_flags, n * sizeof(unsigned)));
    if (first < 2) {
        CUDA_CHECK(cudaFreeHost(h_flags));
        CUDA_CHECK(cudaFreeHost(h_cand));
        return -1;
    }
    CUDA_CHECK(cudaMalloc(&d_cand, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_flags, n * sizeof(unsigned)));
    for (int i = 0; i < n; ++i) h_cand[i] = first + 2 * i;

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Report report{h_flags, n, 0};
    CUDA_CHECK(cudaMemcpyAsync(d_cand, h_cand, n * sizeof(unsigned), cudaMemcpyHostToDevice, s));
    count_primes<<<(n + 255) / 256, 256, 0, s>>>(d_cand, n, d_flags);
    CUDA_CHECK(cudaMemcpyAsync(h_flags, d_flags, n * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaLaunchHostFunc(s, tally, &report));
    CUDA_CHECK(cudaStreamSynchronize(s));

    printf("%ld primes among %d odd candidates from %u\n", report.primes, n, first);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_flags));
    CUDA_CHECK(cudaFree(d_cand));
    CUDA_CHECK(cudaFreeHost(h_flags));
    CUDA_CHECK(cudaFreeHost(h_cand));
    return 0;
}

int main(int argc, char** argv) {
    unsigned first = argc > 1 ? (unsigned)strtoul(argv[1], nullptr, 10) : 1000001u;
    return run(1 << 20, first) == 0 ? 0 : 1;
}
