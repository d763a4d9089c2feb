// case: seed-matching step of a short-read aligner using mapped pinned memory: the query buffer is write-combined and only written by the host, the hit counters are mapped without the write-combined flag and read after a stream synchronize, and the device aliases from cudaHostGetDevicePointer are only passed to the kernel and printed: correct.
// expect: none
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

constexpr int kSeed = 16;

__global__ void match_seeds(const char* ref, int ref_len, const char* query, int num_seeds,
                            int* hits)
{
    int pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos + kSeed > ref_len) return;
    for (int s = 0; s < num_seeds; ++s) {
        const char* q = query + s * kSeed;
        int k = 0;
        while (k < kSeed && ref[pos + k] == q[k]) ++k;
        if (k == kSeed) atomicAdd(&hits[s], 1);
    }
}

int main()
{
    CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    const int ref_len = 1 << 24, num_seeds = 64;
    static const char acgt[4] = {'A', 'C', 'G', 'T'};

    std::vector<char> h_ref(ref_len);
    unsigned int x = 2463534242u;
    for (int i = 0; i < ref_len; ++i) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; h_ref[i] = acgt[x & 3]; }
    char* d_ref = nullptr;
    CUDA_CHECK(cudaMalloc(&d_ref, ref_len));
    CUDA_CHECK(cudaMemcpy(d_ref, h_ref.data(), ref_len, cudaMemcpyHostToDevice));

    char* h_query = nullptr; // host writes, GPU reads over PCIe: write-combined is right here
    int* h_hits = nullptr;   // GPU writes, host reads: plain mapped memory
    CUDA_CHECK(cudaHostAlloc((void**)&h_query, num_seeds * kSeed, cudaHostAllocMapped | cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaHostAlloc((void**)&h_hits, num_seeds * sizeof(int), cudaHostAllocMapped));
    char* d_query = nullptr;
    int* d_hits = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer((void**)&d_query, h_query, 0));
    CUDA_CHECK(cudaHostGetDevicePointer((void**)&d_hits, h_hits, 0));
    if (d_hits == nullptr || d_query == nullptr) return 1;
    printf("hits: host view %p, device view %p\n", (void*)h_hits, (void*)d_hits);

    for (int s = 0; s < num_seeds; ++s) {
        int at = (s * 262147) % (ref_len - kSeed);
        for (int k = 0; k < kSeed; ++k) h_query[s * kSeed + k] = h_ref[at + k]; // writes only
    }
    std::memset(h_hits, 0, num_seeds * sizeof(int));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s)); // blocking: ordered after the legacy-stream upload of d_ref
    match_seeds<<<(ref_len + 255) / 256, 256, 0, s>>>(d_ref, ref_len, d_query, num_seeds, d_hits);
    CUDA_CHECK(cudaStreamSynchronize(s));

    int unique = 0, total = 0;
    for (int i = 0; i < num_seeds; ++i) {
        total += h_hits[i];
        unique += h_hits[i] == 1;
    }
    printf("seeds: %d hits, %d of %d seeds unique\n", total, unique, num_seeds);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFreeHost(h_query));
    CUDA_CHECK(cudaFreeHost(h_hits));
    CUDA_CHECK(cudaFree(d_ref));
    return 0;
}
