// case: a producer stream fills a stream-ordered buffer and records an event; the consumer stream waits on that event, reads the buffer and frees it with cudaFreeAsync on the consumer stream, so every use is ordered before the free
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void generate_noise(float* field, int n, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = (i ^ seed) * 0x27d4eb2du;
    h ^= h >> 15;
    field[i] = (h & 0xffff) / 65535.0f;
}

__global__ void smooth(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = in[i > 0 ? i - 1 : i], r = in[i < n - 1 ? i + 1 : i];
    out[i] = 0.25f * l + 0.5f * in[i] + 0.25f * r;
}

struct Lanes {
    cudaStream_t producer, consumer;
    cudaEvent_t produced;
};

int main() {
    const int n = 1 << 22;
    Lanes lanes;
    CUDA_CHECK(cudaStreamCreateWithFlags(&lanes.producer, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&lanes.consumer, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&lanes.produced, cudaEventDisableTiming));

    float *d_noise = nullptr, *d_smooth = nullptr, *h_smooth = nullptr;
    CUDA_CHECK(cudaMalloc(&d_smooth, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_smooth, n * sizeof(float)));

    CUDA_CHECK(cudaMallocAsync(&d_noise, n * sizeof(float), lanes.producer));
    generate_noise<<<(n + 255) / 256, 256, 0, lanes.producer>>>(d_noise, n, 42u);
    CUDA_CHECK(cudaEventRecord(lanes.produced, lanes.producer));

    CUDA_CHECK(cudaStreamWaitEvent(lanes.consumer, lanes.produced, 0));
    smooth<<<(n + 255) / 256, 256, 0, lanes.consumer>>>(d_noise, d_smooth, n);
    CUDA_CHECK(cudaFreeAsync(d_noise, lanes.consumer));
    CUDA_CHECK(cudaMemcpyAsync(h_smooth, d_smooth, n * sizeof(float), cudaMemcpyDeviceToHost, lanes.consumer));
    CUDA_CHECK(cudaStreamSynchronize(lanes.consumer));

    double mean = 0.0;
    for (int i = 0; i < n; ++i) mean += h_smooth[i];
    printf("smoothed mean %.5f\n", mean / n);

    CUDA_CHECK(cudaFreeHost(h_smooth));
    CUDA_CHECK(cudaFree(d_smooth));
    CUDA_CHECK(cudaEventDestroy(lanes.produced));
    CUDA_CHECK(cudaStreamDestroy(lanes.consumer));
    CUDA_CHECK(cudaStreamDestroy(lanes.producer));
    return 0;
}
