// case: a per-call histogram buffer comes from cudaMallocAsync, is zeroed with cudaMemsetAsync on the same stream before the atomic kernel, read back into pinned memory, and freed with cudaFreeAsync on that same stream; the host reads after the stream synchronize: correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

#define BINS 64

__global__ void bin_values(const float* v, unsigned int* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = min(BINS - 1, max(0, (int)(v[i] * BINS)));
        atomicAdd(&bins[b], 1u);
    }
}

static void histogram_async(const float* d_v, int n, unsigned int* h_bins, cudaStream_t s) {
    unsigned int* d_bins;
    CHECK(cudaMallocAsync(&d_bins, BINS * sizeof(unsigned int), s));
    CHECK(cudaMemsetAsync(d_bins, 0, BINS * sizeof(unsigned int), s));
    bin_values<<<(n + 255) / 256, 256, 0, s>>>(d_v, d_bins, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_bins, d_bins, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(d_bins, s));
}

int main() {
    const int n = 1 << 22;
    float *h_v, *d_v;
    unsigned int* h_bins;
    CHECK(cudaMallocHost(&h_v, n * sizeof(float)));
    CHECK(cudaMallocHost(&h_bins, BINS * sizeof(unsigned int)));
    for (int i = 0; i < n; ++i) h_v[i] = (float)((i * 2654435761u) % 10000) / 10000.0f;

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMallocAsync(&d_v, n * sizeof(float), s));
    CHECK(cudaMemcpyAsync(d_v, h_v, n * sizeof(float), cudaMemcpyHostToDevice, s));

    histogram_async(d_v, n, h_bins, s);
    CHECK(cudaFreeAsync(d_v, s));
    CHECK(cudaStreamSynchronize(s));

    unsigned int total = 0;
    for (int b = 0; b < BINS; ++b) total += h_bins[b];
    printf("total %u of %d\n", total, n);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(h_bins));
    CHECK(cudaFreeHost(h_v));
    return 0;
}
