// case: A k-mer counter uses mapped pinned memory (cudaHostAllocMapped, not write-combined): the kernel writes counts through the pointer from cudaHostGetDevicePointer and the host reads the host pointer only after cudaStreamSynchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

#define K 8
#define N_KMERS (1 << (2 * K))
#define SEQ_LEN (1 << 22)

static unsigned int* g_counts_host = NULL;   /* host view */
static unsigned int* g_counts_dev = NULL;    /* device view of the same pages */
static char* g_d_seq = NULL;
static cudaStream_t g_stream;

__device__ __forceinline__ int base_code(char b)
{
    return b == 'A' ? 0 : b == 'C' ? 1 : b == 'G' ? 2 : 3;
}

__global__ void count_kmers(const char* seq, int len, unsigned int* counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + K > len) return;
    int code = 0;
    for (int j = 0; j < K; ++j) code = (code << 2) | base_code(seq[i + j]);
    atomicAdd(&counts[code], 1u);
}

static void init(const std::vector<char>& seq)
{
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    CUDA_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaHostAlloc((void**)&g_counts_host, N_KMERS * sizeof(unsigned int),
                             cudaHostAllocMapped | cudaHostAllocPortable));
    CUDA_CHECK(cudaHostGetDevicePointer((void**)&g_counts_dev, g_counts_host, 0));
    CUDA_CHECK(cudaMalloc((void**)&g_d_seq, SEQ_LEN));
    CUDA_CHECK(cudaMemcpy(g_d_seq, seq.data(), SEQ_LEN, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < N_KMERS; ++i) g_counts_host[i] = 0;
}

static void count(void)
{
    count_kmers<<<(SEQ_LEN + 255) / 256, 256, 0, g_stream>>>(g_d_seq, SEQ_LEN, g_counts_dev);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(g_stream));
}

static void report(void)
{
    unsigned int best = 0;
    int best_code = 0;
    for (int c = 0; c < N_KMERS; ++c)
        if (g_counts_host[c] > best) { best = g_counts_host[c]; best_code = c; }
    char kmer[K + 1];
    for (int j = K - 1; j >= 0; --j) { kmer[j] = "ACGT"[best_code & 3]; best_code >>= 2; }
    kmer[K] = '\0';
    printf("most frequent %d-mer: %s (%u)\n", K, kmer, best);
}

int main(void)
{
    std::vector<char> seq(SEQ_LEN);
    for (int i = 0; i < SEQ_LEN; ++i) seq[i] = "ACGT"[(i * 2654435761u >> 13) & 3];
    init(seq);
    count();
    report();
    CUDA_CHECK(cudaFree(g_d_seq));
    CUDA_CHECK(cudaFreeHost(g_counts_host));
    CUDA_CHECK(cudaStreamDestroy(g_stream));
    return 0;
}
