// case: A two-lane read aligner attaches each lane's managed hit buffer to its own stream (cudaMemAttachSingle, then a device synchronize for the attachment), so the host may post-process lane A's idle buffer while lane B's kernel, which uses only its own buffer, runs.
// expect: none
#include <cuda_runtime.h>
#include <array>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kReadsPerLane = 1 << 18;
constexpr int kRefLen = 1 << 22;

__global__ void seed_hits(const char* ref, int ref_len, int lane, int n, int* hits)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    int pos = (int)(((long long)r * 2654435761LL + lane) % (ref_len - 32));
    int match = 0;
    for (int j = 0; j < 32; ++j) match += ref[pos + j] == "ACGT"[(r + j) & 3];
    hits[r] = match >= 16 ? pos : -1;
}

struct Lane {
    cudaStream_t stream{};
    int* hits = nullptr; // managed, attached to `stream` only
};

int main()
{
    char* d_ref = nullptr;
    CUDA_CHECK(cudaMalloc(&d_ref, kRefLen));
    CUDA_CHECK(cudaMemset(d_ref, 'A', kRefLen));

    std::array<Lane, 2> lanes;
    for (Lane& l : lanes) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocManaged(&l.hits, kReadsPerLane * sizeof(int)));
        CUDA_CHECK(cudaStreamAttachMemAsync(l.stream, l.hits, 0, cudaMemAttachSingle));
    }
    CUDA_CHECK(cudaDeviceSynchronize()); // memset done, attachments in effect

    Lane& a = lanes[0];
    Lane& b = lanes[1];
    seed_hits<<<kReadsPerLane / 256, 256, 0, a.stream>>>(d_ref, kRefLen, 0, kReadsPerLane, a.hits);
    CUDA_CHECK(cudaStreamSynchronize(a.stream)); // lane A idle from here on

    seed_hits<<<kReadsPerLane / 256, 256, 0, b.stream>>>(d_ref, kRefLen, 1, kReadsPerLane, b.hits);
    CUDA_CHECK(cudaGetLastError());

    // lane B's kernel may still run; a.hits belongs to the idle a.stream
    long mapped_a = 0;
    for (int r = 0; r < kReadsPerLane; ++r) {
        if (a.hits[r] >= 0) ++mapped_a;
        else a.hits[r] = 0; // clear unmapped slots for the next batch
    }

    CUDA_CHECK(cudaStreamSynchronize(b.stream));
    long mapped_b = 0;
    for (int r = 0; r < kReadsPerLane; ++r) mapped_b += b.hits[r] >= 0;
    std::printf("lane A: %ld hits, lane B: %ld hits\n", mapped_a, mapped_b);

    for (Lane& l : lanes) {
        CUDA_CHECK(cudaFree(l.hits));
        CUDA_CHECK(cudaStreamDestroy(l.stream));
    }
    CUDA_CHECK(cudaFree(d_ref));
    return 0;
}
