// Auto-exposure loop of a camera pipeline: every frame is uploaded, converted from the RGGB
// Bayer mosaic to luma, and a 256-bin luma histogram comes back to the host, which adjusts
// the exposure. The per-frame work is recorded once into a graph on the pipeline's stream.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t e = (call);                                                           \
        if (e != cudaSuccess) {                                                           \
            std::fprintf(stderr, "camera: %s (%s:%d)\n", cudaGetErrorString(e), __FILE__, \
                         __LINE__);                                                       \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

constexpr int kWidth = 1920;
constexpr int kHeight = 1080;
constexpr int kBins = 256;

__global__ void bayer_to_luma(const unsigned short* __restrict__ raw, unsigned char* __restrict__ luma,
                              int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width / 2 || y >= height / 2) return;
    const unsigned short* q = raw + (2 * y) * width + 2 * x;
    float r = q[0], g = 0.5f * (q[1] + q[width]), b = q[width + 1];
    float l = (0.299f * r + 0.587f * g + 0.114f * b) / 4095.0f * 255.0f;
    luma[y * (width / 2) + x] = static_cast<unsigned char>(l > 255.0f ? 255.0f : l);
}

__global__ void zero_bins(unsigned int* hist, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < bins) hist[i] = 0;
}

__global__ void luma_histogram(const unsigned char* __restrict__ luma, int count,
                               unsigned int* hist) {
    __shared__ unsigned int local[kBins];
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        atomicAdd(&local[luma[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) atomicAdd(&hist[i], local[i]);
}

static void reset_histogram(unsigned int* d_hist) {
    zero_bins<<<1, kBins>>>(d_hist, kBins);  // EXPECT: uncapturable_call
    CUDA_CHECK(cudaGetLastError());
}

static void fake_sensor_readout(unsigned short* raw, int frame, float exposure) {
    for (int i = 0; i < kWidth * kHeight; ++i) {
        float v = exposure * (500.0f + (i % kWidth) * 0.8f + 40.0f * ((i / kWidth + frame) % 13));
        raw[i] = static_cast<unsigned short>(v > 4095.0f ? 4095.0f : v);
    }
}

int main() {
    const size_t raw_bytes = sizeof(unsigned short) * kWidth * kHeight;
    const int luma_count = (kWidth / 2) * (kHeight / 2);
    const size_t hist_bytes = sizeof(unsigned int) * kBins;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    unsigned short *h_raw, *d_raw;
    unsigned char* d_luma;
    unsigned int *h_hist, *d_hist;
    CUDA_CHECK(cudaMallocHost(&h_raw, raw_bytes));
    CUDA_CHECK(cudaMallocHost(&h_hist, hist_bytes));
    CUDA_CHECK(cudaMalloc(&d_raw, raw_bytes));
    CUDA_CHECK(cudaMalloc(&d_luma, luma_count));
    CUDA_CHECK(cudaMalloc(&d_hist, hist_bytes));

    cudaGraph_t graph;
    cudaGraphExec_t frame_exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    CUDA_CHECK(cudaMemcpyAsync(d_raw, h_raw, raw_bytes, cudaMemcpyHostToDevice, stream));
    dim3 block(32, 8);
    dim3 grid((kWidth / 2 + 31) / 32, (kHeight / 2 + 7) / 8);
    bayer_to_luma<<<grid, block, 0, stream>>>(d_raw, d_luma, kWidth, kHeight);
    CUDA_CHECK(cudaGetLastError());
    reset_histogram(d_hist);
    luma_histogram<<<120, 256, 0, stream>>>(d_luma, luma_count, d_hist);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_hist, d_hist, hist_bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&frame_exec, graph, 0));

    float exposure = 1.0f;
    for (int frame = 0; frame < 120; ++frame) {
        fake_sensor_readout(h_raw, frame, exposure);
        CUDA_CHECK(cudaGraphLaunch(frame_exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        unsigned long long weighted = 0, total = 0;
        for (int b = 0; b < kBins; ++b) {
            weighted += static_cast<unsigned long long>(b) * h_hist[b];
            total += h_hist[b];
        }
        float mean = total ? static_cast<float>(weighted) / total : 0.0f;
        exposure *= mean > 0.0f ? 118.0f / mean : 1.0f;
        if (frame % 30 == 0) std::printf("frame %3d: mean luma %.1f exposure %.3f\n", frame, mean, exposure);
    }

    CUDA_CHECK(cudaGraphExecDestroy(frame_exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_hist));
    CUDA_CHECK(cudaFree(d_luma));
    CUDA_CHECK(cudaFree(d_raw));
    CUDA_CHECK(cudaFreeHost(h_hist));
    CUDA_CHECK(cudaFreeHost(h_raw));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
