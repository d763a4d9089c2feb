// case: a helper allocates and fills a device histogram and returns the cudaMalloc'd pointer; after synchronizing, the caller totals the bins by indexing the device pointer on the host instead of copying them back.
// expect: host_deref_device_ptr=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

#define BINS 256

__global__ void histogram(const unsigned char* px, unsigned int* hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[px[i]], 1u);
}

static unsigned int* compute_histogram(const unsigned char* d_px, int n, cudaStream_t s) {
    unsigned int* d_hist;
    CHECK(cudaMalloc(&d_hist, BINS * sizeof(unsigned int)));
    CHECK(cudaMemsetAsync(d_hist, 0, BINS * sizeof(unsigned int), s));
    histogram<<<(n + 255) / 256, 256, 0, s>>>(d_px, d_hist, n);
    CHECK(cudaGetLastError());
    return d_hist;
}

int main() {
    const int w = 1920, h = 1080, n = w * h;
    std::vector<unsigned char> img(n);
    for (int i = 0; i < n; ++i) img[i] = (unsigned char)((i * 31) & 0xff);

    unsigned char* d_px;
    CHECK(cudaMalloc(&d_px, n));
    CHECK(cudaMemcpy(d_px, img.data(), n, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    unsigned int* d_hist = compute_histogram(d_px, n, s);
    CHECK(cudaStreamSynchronize(s));

    unsigned long long total = 0;
    for (int b = 0; b < BINS; ++b) total += d_hist[b];  // EXPECT: host_deref_device_ptr
    printf("%llu pixels counted\n", total);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_hist));
    CHECK(cudaFree(d_px));
    return 0;
}
