// case: a frame-statistics pass records a completion event after its pinned readback but reads the histogram before calling cudaEventSynchronize
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
    exit(1); } } while (0)

constexpr int kBins = 256;

__global__ void luminance_hist(const unsigned char* px, int n, unsigned int* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[px[i]], 1u);
}

struct FrameStats {
    unsigned int* d_bins;
    unsigned int* h_bins;
    unsigned char* d_pixels;
    unsigned char* h_pixels;
    cudaEvent_t done;
};

static void stats_init(FrameStats& fs, int npix) {
    CUDA_CHECK(cudaMalloc(&fs.d_bins, kBins * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&fs.d_pixels, npix));
    CUDA_CHECK(cudaMallocHost(&fs.h_bins, kBins * sizeof(unsigned int)));
    CUDA_CHECK(cudaMallocHost(&fs.h_pixels, npix));
    CUDA_CHECK(cudaEventCreateWithFlags(&fs.done, cudaEventDisableTiming));
}

static void stats_release(FrameStats& fs) {
    cudaEventDestroy(fs.done);
    cudaFreeHost(fs.h_pixels);
    cudaFreeHost(fs.h_bins);
    cudaFree(fs.d_pixels);
    cudaFree(fs.d_bins);
}

int main() {
    const int w = 1920, h = 1080, npix = w * h;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    FrameStats fs;
    stats_init(fs, npix);

    for (int i = 0; i < npix; ++i) fs.h_pixels[i] = (unsigned char)((i * 7) & 0xff);

    CUDA_CHECK(cudaMemcpyAsync(fs.d_pixels, fs.h_pixels, npix, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemsetAsync(fs.d_bins, 0, kBins * sizeof(unsigned int), s));
    luminance_hist<<<(npix + 255) / 256, 256, 0, s>>>(fs.d_pixels, npix, fs.d_bins);
    CUDA_CHECK(cudaMemcpyAsync(fs.h_bins, fs.d_bins, kBins * sizeof(unsigned int),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaEventRecord(fs.done, s));

    unsigned int peak = 0;
    int peak_bin = 0;
    for (int b = 0; b < kBins; ++b) {
        if (fs.h_bins[b] > peak) { // EXPECT: missing_sync
            peak = fs.h_bins[b];
            peak_bin = b;
        }
    }
    CUDA_CHECK(cudaEventSynchronize(fs.done));
    printf("peak bin %d with %u pixels\n", peak_bin, peak);

    stats_release(fs);
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
