// case: An image histogram tool written against the driver API reads its bins back into cuMemHostAlloc memory allocated with CU_MEMHOSTALLOC_WRITECOMBINED (flags constant from the header) and scans them on the host after cuStreamSynchronize.
// expect: write_combined_host_read=1
#include "drv_util.h"
#include <cuda_runtime.h>
#include <vector>

constexpr int kBins = 4096;
constexpr int kPixels = 3840 * 2160;

__global__ void hist12(const unsigned short* img, int n, unsigned int* bins)
{
    __shared__ unsigned int local[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[img[i] & (kBins - 1)], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main()
{
    DriverContext drv;

    CUdeviceptr d_img = 0, d_bins = 0;
    CU_CHECK(cuMemAlloc(&d_img, kPixels * sizeof(unsigned short)));
    CU_CHECK(cuMemAlloc(&d_bins, kBins * sizeof(unsigned int)));

    void* h_img = nullptr;
    void* h_bins = nullptr;
    CU_CHECK(cuMemHostAlloc(&h_img, kPixels * sizeof(unsigned short), kStagingFlags));
    CU_CHECK(cuMemHostAlloc(&h_bins, kBins * sizeof(unsigned int), kStagingFlags));

    unsigned short* pixels = static_cast<unsigned short*>(h_img);
    for (int i = 0; i < kPixels; ++i) pixels[i] = (unsigned short)((i * 7919u) & 0x0fff); // writes only

    CU_CHECK(cuMemcpyHtoDAsync(d_img, h_img, kPixels * sizeof(unsigned short), drv.stream));
    CU_CHECK(cuMemsetD32Async(d_bins, 0, kBins, drv.stream));
    hist12<<<256, 512, 0, (cudaStream_t)drv.stream>>>(reinterpret_cast<const unsigned short*>(d_img), kPixels,
                                                     reinterpret_cast<unsigned int*>(d_bins));
    CU_CHECK(cuMemcpyDtoHAsync(h_bins, d_bins, kBins * sizeof(unsigned int), drv.stream));
    CU_CHECK(cuStreamSynchronize(drv.stream));

    const unsigned int* bins = static_cast<const unsigned int*>(h_bins);
    unsigned int peak = 0;
    int peak_bin = 0;
    for (int b = 0; b < kBins; ++b) {
        if (bins[b] > peak) { // EXPECT: write_combined_host_read
            peak = bins[b];
            peak_bin = b;
        }
    }
    std::printf("peak bin %d with %u pixels\n", peak_bin, peak);

    CU_CHECK(cuMemFreeHost(h_bins));
    CU_CHECK(cuMemFreeHost(h_img));
    CU_CHECK(cuMemFree(d_bins));
    CU_CHECK(cuMemFree(d_img));
    return 0;
}
