// case: log-analytics scanner double-buffers pinned input chunks across two slots; before refilling a slot the host waits on the event recorded after that slot's upload, and results are read only after cudaEventSynchronize: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <array>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

constexpr int kSlots = 2;

__global__ void count_errors(const char* __restrict__ text, size_t len, unsigned long long* hits)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i + 5 > len) return;
    if (text[i] == 'E' && text[i + 1] == 'R' && text[i + 2] == 'R' && text[i + 3] == 'O' && text[i + 4] == 'R')
        atomicAdd(hits, 1ull);
}

int main(int argc, char** argv)
{
    size_t chunk = argc > 1 ? strtoull(argv[1], nullptr, 10) : (size_t)64 << 20;
    int nchunks = argc > 2 ? atoi(argv[2]) : 16;
    const char* line = "2026-11-27T10:00:00Z INFO request ok\n2026-11-27T10:00:01Z ERROR upstream timeout\n";
    size_t line_len = strlen(line);

    std::array<char*, kSlots> h_buf{}, d_buf{};
    std::array<cudaEvent_t, kSlots> uploaded{};
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int k = 0; k < kSlots; ++k) {
        CUDA_CHECK(cudaMallocHost(&h_buf[k], chunk));
        CUDA_CHECK(cudaMalloc(&d_buf[k], chunk));
        CUDA_CHECK(cudaEventCreateWithFlags(&uploaded[k], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventRecord(uploaded[k], s));
    }
    unsigned long long *d_hits, *h_hits;
    CUDA_CHECK(cudaMalloc(&d_hits, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMallocHost(&h_hits, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemsetAsync(d_hits, 0, sizeof(unsigned long long), s));

    for (int c = 0; c < nchunks; ++c) {
        int k = c % kSlots;
        CUDA_CHECK(cudaEventSynchronize(uploaded[k]));      // the slot's previous upload is done
        for (size_t off = 0; off < chunk; ++off) h_buf[k][off] = line[(off + c) % line_len];
        CUDA_CHECK(cudaMemcpyAsync(d_buf[k], h_buf[k], chunk, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaEventRecord(uploaded[k], s));
        count_errors<<<(unsigned)((chunk + 255) / 256), 256, 0, s>>>(d_buf[k], chunk, d_hits);
    }
    CUDA_CHECK(cudaMemcpyAsync(h_hits, d_hits, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventRecord(done, s));
    CUDA_CHECK(cudaEventSynchronize(done));
    printf("%llu ERROR lines in %d chunks\n", *h_hits, nchunks);

    CUDA_CHECK(cudaEventDestroy(done));
    CUDA_CHECK(cudaFreeHost(h_hits));
    CUDA_CHECK(cudaFree(d_hits));
    for (int k = 0; k < kSlots; ++k) {
        CUDA_CHECK(cudaEventDestroy(uploaded[k]));
        CUDA_CHECK(cudaFree(d_buf[k]));
        CUDA_CHECK(cudaFreeHost(h_buf[k]));
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
