// case: Results are copied to pinned memory with cudaMemcpyAsync and consumed by a cudaLaunchHostFunc callback enqueued behind the copy on the same stream, so the callback's reads are stream-ordered; the host waits for the stream before freeing.
// expect: none
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int kBins = 1 << 16;
constexpr int kBatches = 4;

__global__ void bin_count(const int* keys, int n, unsigned* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[keys[i] & (kBins - 1)], 1u);
}

__global__ void gen_keys(int* keys, int n, int batch) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) keys[i] = i * 2654435761u + batch;
}

struct Report {
    const unsigned* bins;
    int batch;
    unsigned long long total;
};

static void CUDART_CB on_batch_done(void* user) {
    Report* r = static_cast<Report*>(user);
    unsigned long long t = 0;
    for (int b = 0; b < kBins; ++b) t += r->bins[b];
    r->total = t;
    std::printf("batch %d: %llu keys binned\n", r->batch, t);
}

int main() {
    const int n = 1 << 22;
    int* d_keys; unsigned* d_bins; unsigned* h_bins[kBatches];
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMalloc(&d_keys, n * sizeof(int)));
    CK(cudaMalloc(&d_bins, kBins * sizeof(unsigned)));
    Report reports[kBatches];

    for (int b = 0; b < kBatches; ++b) {
        CK(cudaMallocHost(&h_bins[b], kBins * sizeof(unsigned)));
        reports[b] = Report{h_bins[b], b, 0};
    }

    for (int b = 0; b < kBatches; ++b) {
        gen_keys<<<n / 256, 256, 0, s>>>(d_keys, n, b);
        CK(cudaMemsetAsync(d_bins, 0, kBins * sizeof(unsigned), s));
        bin_count<<<n / 256, 256, 0, s>>>(d_keys, n, d_bins);
        CK(cudaMemcpyAsync(h_bins[b], d_bins, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
        CK(cudaLaunchHostFunc(s, on_batch_done, &reports[b]));
    }

    CK(cudaStreamSynchronize(s));
    unsigned long long all = 0;
    for (int b = 0; b < kBatches; ++b) all += reports[b].total;
    std::printf("all batches: %llu\n", all);

    for (int b = 0; b < kBatches; ++b) CK(cudaFreeHost(h_bins[b]));
    CK(cudaFree(d_bins));
    CK(cudaFree(d_keys));
    CK(cudaStreamDestroy(s));
    return 0;
}
