// case: an RAII image-histogram class copies its 256 bins into pinned memory with cudaMemcpyAsync in compute(), and peakBin() scans that pinned buffer without waiting for the stream.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                   \
                    cudaGetErrorString(err_));                                  \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

__global__ void histogram256(const uint8_t* img, size_t n, unsigned* bins) {
    __shared__ unsigned local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&local[img[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

class ImageHistogram {
public:
    ImageHistogram() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_bins_, 256 * sizeof(unsigned)));
        CUDA_CHECK(cudaMallocHost(&h_bins_, 256 * sizeof(unsigned)));
    }
    ~ImageHistogram() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_bins_);
        cudaFree(d_bins_);
        cudaStreamDestroy(stream_);
    }

    void compute(const uint8_t* d_img, size_t n) {
        CUDA_CHECK(cudaMemsetAsync(d_bins_, 0, 256 * sizeof(unsigned), stream_));
        histogram256<<<120, 256, 0, stream_>>>(d_img, n, d_bins_);
        CUDA_CHECK(cudaMemcpyAsync(h_bins_, d_bins_, 256 * sizeof(unsigned),
                                   cudaMemcpyDeviceToHost, stream_));
    }

    // Called right after compute(): nothing here waits for stream_.
    int peakBin() const {
        int best = 0;
        for (int b = 1; b < 256; ++b)
            if (h_bins_[b] > h_bins_[best]) best = b;
        return best;
    }

    cudaStream_t stream() const { return stream_; }

private:
    cudaStream_t stream_{};
    unsigned* d_bins_ = nullptr;
    unsigned* h_bins_ = nullptr;
};

int main() {
    const int width = 3840, height = 2160;
    const size_t n = (size_t)width * height;
    std::vector<uint8_t> frame(n);
    for (size_t i = 0; i < n; ++i) frame[i] = (uint8_t)((i * 2654435761u) >> 24);

    uint8_t* d_img = nullptr;
    CUDA_CHECK(cudaMalloc(&d_img, n));
    CUDA_CHECK(cudaMemcpy(d_img, frame.data(), n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());

    {
        ImageHistogram hist;
        hist.compute(d_img, n);
        int peak = hist.peakBin();
        printf("peak luminance bin: %d\n", peak);
    }

    CUDA_CHECK(cudaFree(d_img));
    return 0;
}
