// case: genomics read-alignment batcher allocates the per-batch seed table with cudaMallocAsync on the compute stream and releases it with cudaFreeAsync on the upload stream, which has no event ordering after the seeding kernel that still uses it.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

constexpr int kSeedLen = 19;

struct ReadBatch {
    uint8_t* d_bases;     // 2-bit packed, one byte per base for simplicity
    int*     d_best_pos;
    int      reads;
    int      read_len;
};

__global__ void extract_seeds(const uint8_t* bases, int read_len, int reads, uint64_t* seeds)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= reads) return;
    uint64_t h = 0;
    for (int k = 0; k < kSeedLen; ++k) h = (h << 2) | (bases[(size_t)r * read_len + k] & 3);
    seeds[r] = h * 0x9E3779B97F4A7C15ull;
}

__global__ void vote_positions(const uint64_t* seeds, int reads, int ref_len, int* best_pos)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= reads) return;
    best_pos[r] = (int)(seeds[r] % (uint64_t)ref_len);
}

int main(int argc, char** argv)
{
    int reads = argc > 1 ? atoi(argv[1]) : 1 << 20, read_len = 150, batches = 8;
    int ref_len = 3'100'000;
    cudaStream_t upload, compute;
    CUDA_CHECK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    cudaEvent_t uploaded;
    CUDA_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

    uint8_t* h_bases;
    CUDA_CHECK(cudaMallocHost(&h_bases, (size_t)reads * read_len));
    std::vector<int> best(reads);

    ReadBatch b{nullptr, nullptr, reads, read_len};
    CUDA_CHECK(cudaMalloc(&b.d_bases, (size_t)reads * read_len));
    CUDA_CHECK(cudaMalloc(&b.d_best_pos, reads * sizeof(int)));

    long long checksum = 0;
    for (int batch = 0; batch < batches; ++batch) {
        for (size_t i = 0; i < (size_t)reads * read_len; ++i) h_bases[i] = (uint8_t)((i * 7 + batch) & 3);
        CUDA_CHECK(cudaMemcpyAsync(b.d_bases, h_bases, (size_t)reads * read_len, cudaMemcpyHostToDevice, upload));
        CUDA_CHECK(cudaEventRecord(uploaded, upload));
        CUDA_CHECK(cudaStreamWaitEvent(compute, uploaded, 0));

        uint64_t* d_seeds = nullptr;
        CUDA_CHECK(cudaMallocAsync(&d_seeds, reads * sizeof(uint64_t), compute));
        extract_seeds<<<(reads + 255) / 256, 256, 0, compute>>>(b.d_bases, read_len, reads, d_seeds);
        vote_positions<<<(reads + 255) / 256, 256, 0, compute>>>(d_seeds, reads, ref_len, b.d_best_pos);
        CUDA_CHECK(cudaFreeAsync(d_seeds, upload));                  // EXPECT: missing_sync

        CUDA_CHECK(cudaMemcpyAsync(best.data(), b.d_best_pos, 64 * sizeof(int), cudaMemcpyDeviceToHost, compute));
        CUDA_CHECK(cudaStreamSynchronize(compute));
        for (int r = 0; r < 64; ++r) checksum += best[r];
        CUDA_CHECK(cudaStreamSynchronize(upload));
    }
    printf("checksum %lld\n", checksum);

    CUDA_CHECK(cudaFree(b.d_best_pos));
    CUDA_CHECK(cudaFree(b.d_bases));
    CUDA_CHECK(cudaFreeHost(h_bases));
    CUDA_CHECK(cudaEventDestroy(uploaded));
    CUDA_CHECK(cudaStreamDestroy(compute));
    CUDA_CHECK(cudaStreamDestroy(upload));
    return 0;
}
