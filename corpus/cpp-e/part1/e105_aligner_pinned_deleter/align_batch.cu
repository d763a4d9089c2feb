// case: A short-read aligner keeps its score buffer in a unique_ptr whose deleter (header) calls cudaFree, but the factory allocated it with cudaHostAlloc: pinned memory released by the device allocator's free.
// expect: mismatched_free=1
#include "host_buffers.h"
#include <cstring>
#include <vector>

constexpr int kReads = 1 << 16;
constexpr int kReadLen = 128;
constexpr int kRefLen = 1 << 20;

__global__ void score_reads(const char* reads, const char* ref, int n_reads, int read_len,
                            int ref_len, int* best)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_reads) return;
    const char* q = reads + (size_t)r * read_len;
    int best_score = -1;
    for (int pos = (r * 131) % (ref_len - read_len), t = 0; t < 16; ++t, pos = (pos + 4099) % (ref_len - read_len)) {
        int s = 0;
        for (int j = 0; j < read_len; ++j) s += (q[j] == ref[pos + j]) ? 2 : -1;
        best_score = max(best_score, s);
    }
    best[r] = best_score;
}

int main()
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::vector<char> reference(kRefLen);
    for (int i = 0; i < kRefLen; ++i) reference[i] = "ACGT"[(i * 7 + i / 13) & 3];

    char *d_ref = nullptr, *d_reads = nullptr;
    int* d_best = nullptr;
    CUDA_CHECK(cudaMalloc(&d_ref, kRefLen));
    CUDA_CHECK(cudaMalloc(&d_reads, (size_t)kReads * kReadLen));
    CUDA_CHECK(cudaMalloc(&d_best, kReads * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_ref, reference.data(), kRefLen, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize()); // the pageable upload is only staged when cudaMemcpy returns

    {
        HostStaging batch((size_t)kReads * kReadLen);
        PinnedArray<int> scores = make_pinned_array<int>(kReads);

        char* reads = batch.as<char>();
        for (int r = 0; r < kReads; ++r)
            std::memcpy(reads + (size_t)r * kReadLen, reference.data() + (r * 977) % (kRefLen - kReadLen), kReadLen);

        CUDA_CHECK(cudaMemcpyAsync(d_reads, reads, batch.bytes(), cudaMemcpyHostToDevice, stream));
        score_reads<<<(kReads + 127) / 128, 128, 0, stream>>>(d_reads, d_ref, kReads, kReadLen, kRefLen, d_best);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(scores.get(), d_best, kReads * sizeof(int), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));

        long mapped = 0;
        for (int r = 0; r < kReads; ++r) mapped += scores[r] >= kReadLen;
        std::printf("%ld of %d reads mapped exactly\n", mapped, kReads);
    } // batch -> cudaFreeHost; scores -> CudaDeleter

    CUDA_CHECK(cudaFree(d_best));
    CUDA_CHECK(cudaFree(d_reads));
    CUDA_CHECK(cudaFree(d_ref));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
