// case: Video frame uploader fills a write-combined pinned staging buffer on the host (writes only, streaming through it), waits on an event before refilling, and reads results back through an ordinary cudaMallocHost buffer after synchronizing.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstring>

#define CUDA_OK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; } } while (0)

__global__ void nv12_to_luma_mean(const uint8_t* nv12, int w, int h, unsigned long long* sums, int frame)
{
    __shared__ unsigned long long part;
    if (threadIdx.x == 0) part = 0;
    __syncthreads();
    unsigned local = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < w * h; i += gridDim.x * blockDim.x) local += nv12[i];
    atomicAdd(&part, (unsigned long long)local);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&sums[frame], part);
}

static void synth_frame(uint8_t* dst, int w, int h, int f)
{
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            dst[y * w + x] = (uint8_t)((x + y + 3 * f) & 0xff);
    std::memset(dst + w * h, 128, w * h / 2);            // chroma planes
}

int main()
{
    const int w = 1920, h = 1080, frames = 120;
    const size_t frame_bytes = (size_t)w * h * 3 / 2;

    uint8_t* staging;                 // write-combined: host writes, DMA reads
    unsigned long long* h_sums;       // cached pinned: host reads
    CUDA_OK(cudaHostAlloc(&staging, frame_bytes, cudaHostAllocWriteCombined));
    CUDA_OK(cudaMallocHost(&h_sums, frames * sizeof(unsigned long long)));

    uint8_t* d_frame; unsigned long long* d_sums;
    CUDA_OK(cudaMalloc(&d_frame, frame_bytes));
    CUDA_OK(cudaMalloc(&d_sums, frames * sizeof(unsigned long long)));
    CUDA_OK(cudaMemset(d_sums, 0, frames * sizeof(unsigned long long)));

    cudaStream_t s; cudaEvent_t uploaded;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

    for (int f = 0; f < frames; ++f) {
        if (f > 0) CUDA_OK(cudaEventSynchronize(uploaded));   // previous DMA done reading staging
        synth_frame(staging, w, h, f);
        CUDA_OK(cudaMemcpyAsync(d_frame, staging, frame_bytes, cudaMemcpyHostToDevice, s));
        CUDA_OK(cudaEventRecord(uploaded, s));
        nv12_to_luma_mean<<<120, 256, 0, s>>>(d_frame, w, h, d_sums, f);
    }
    CUDA_OK(cudaMemcpyAsync(h_sums, d_sums, frames * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));

    for (int f = 0; f < frames; f += 30)
        std::printf("frame %3d mean luma %.2f\n", f, (double)h_sums[f] / (w * h));

    cudaEventDestroy(uploaded);
    cudaStreamDestroy(s);
    cudaFree(d_sums); cudaFree(d_frame);
    cudaFreeHost(h_sums); cudaFreeHost(staging);
    return 0;
}
