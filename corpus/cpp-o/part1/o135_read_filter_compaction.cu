// case: sequencing-read quality filter: the per-base quality buffer is a global nothing allocates, yet the upload copies into it and the marking kernel reads through it, and after the exclusive scan the host reads the device offsets array directly to get the number of kept reads.
// expect: unallocated_pointer=2, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <string>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

static constexpr int kReadLen = 150;
static uint8_t* d_qual;           // phred scores, kReadLen per read
static int* d_keep;
static int* d_offsets;

__global__ void mark_reads(const uint8_t* __restrict__ qual, int reads, int min_mean_q, int* keep)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= reads) return;
    int sum = 0;
    for (int i = 0; i < kReadLen; ++i) sum += qual[(size_t)r * kReadLen + i];
    keep[r] = sum >= min_mean_q * kReadLen;
}

// single-block exclusive scan, reads <= 1024 per batch in this tool; offsets has reads + 1 entries
__global__ void exclusive_scan(const int* __restrict__ keep, int* offsets, int reads)
{
    __shared__ int tmp[1024];
    int t = threadIdx.x;
    tmp[t] = t < reads ? keep[t] : 0;
    __syncthreads();
    for (int d = 1; d < 1024; d <<= 1) {
        int v = t >= d ? tmp[t - d] : 0;
        __syncthreads();
        tmp[t] += v;
        __syncthreads();
    }
    if (t < reads) offsets[t + 1] = tmp[t];
    if (t == 0) offsets[0] = 0;
}

int main(int argc, char** argv)
{
    int reads = argc > 1 ? atoi(argv[1]) : 1024;
    if (reads > 1024) reads = 1024;
    int min_q = argc > 2 ? atoi(argv[2]) : 28;
    std::string sample = argc > 3 ? argv[3] : "NA12878_L001";

    std::vector<uint8_t> qual((size_t)reads * kReadLen);
    for (size_t i = 0; i < qual.size(); ++i) qual[i] = (uint8_t)(20 + (i * 2654435761u >> 11) % 21);

    CUDA_CHECK(cudaMalloc(&d_keep, reads * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_offsets, (reads + 1) * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_qual, qual.data(), qual.size(), cudaMemcpyHostToDevice));   // EXPECT: unallocated_pointer

    mark_reads<<<(reads + 127) / 128, 128>>>(d_qual, reads, min_q, d_keep);            // EXPECT: unallocated_pointer
    exclusive_scan<<<1, 1024>>>(d_keep, d_offsets, reads);
    CUDA_CHECK(cudaDeviceSynchronize());

    int kept = d_offsets[reads];                                                         // EXPECT: host_deref_device_ptr
    printf("%s: kept %d of %d reads (mean Q >= %d)\n", sample.c_str(), kept, reads, min_q);

    CUDA_CHECK(cudaFree(d_offsets));
    CUDA_CHECK(cudaFree(d_keep));
    return 0;
}
