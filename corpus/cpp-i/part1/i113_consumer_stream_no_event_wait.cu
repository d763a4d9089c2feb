// case: a decode kernel on one stream produces a buffer that a filter kernel on a second non-blocking stream consumes with no event wait between them; the host then syncs both and copies back
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void decode_rle(const unsigned short* runs, int nruns, unsigned char* samples) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nruns) return;
    unsigned short packed = runs[r];
    unsigned char value = packed & 0xff;
    for (int k = 0; k < 8; ++k) samples[r * 8 + k] = (k < (packed >> 8)) ? value : 0;
}

__global__ void box_filter(const unsigned char* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
}

int main() {
    const int nruns = 1 << 18;
    const int nsamples = nruns * 8;

    cudaStream_t decode_s, filter_s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&decode_s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&filter_s, cudaStreamNonBlocking));

    unsigned short* h_runs;
    float* h_filtered;
    CUDA_CHECK(cudaMallocHost(&h_runs, nruns * sizeof(unsigned short)));
    CUDA_CHECK(cudaMallocHost(&h_filtered, nsamples * sizeof(float)));
    for (int r = 0; r < nruns; ++r) h_runs[r] = (unsigned short)(((r % 8) << 8) | (r & 0xff));

    unsigned short* d_runs;
    unsigned char* d_samples;
    float* d_filtered;
    CUDA_CHECK(cudaMalloc(&d_runs, nruns * sizeof(unsigned short)));
    CUDA_CHECK(cudaMalloc(&d_samples, nsamples));
    CUDA_CHECK(cudaMalloc(&d_filtered, nsamples * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_filtered, 0, nsamples * sizeof(float), filter_s));

    CUDA_CHECK(cudaMemcpyAsync(d_runs, h_runs, nruns * sizeof(unsigned short),
                               cudaMemcpyHostToDevice, decode_s));
    decode_rle<<<(nruns + 255) / 256, 256, 0, decode_s>>>(d_runs, nruns, d_samples);

    box_filter<<<(nsamples + 255) / 256, 256, 0, filter_s>>>(d_samples, d_filtered, nsamples); // EXPECT: missing_sync
    CUDA_CHECK(cudaMemcpyAsync(h_filtered, d_filtered, nsamples * sizeof(float),
                               cudaMemcpyDeviceToHost, filter_s));

    CUDA_CHECK(cudaStreamSynchronize(decode_s));
    CUDA_CHECK(cudaStreamSynchronize(filter_s));
    double acc = 0.0;
    for (int i = 0; i < nsamples; ++i) acc += h_filtered[i];
    printf("mean filtered sample %.4f\n", acc / nsamples);

    CUDA_CHECK(cudaFree(d_filtered));
    CUDA_CHECK(cudaFree(d_samples));
    CUDA_CHECK(cudaFree(d_runs));
    CUDA_CHECK(cudaFreeHost(h_filtered));
    CUDA_CHECK(cudaFreeHost(h_runs));
    CUDA_CHECK(cudaStreamDestroy(filter_s));
    CUDA_CHECK(cudaStreamDestroy(decode_s));
    return 0;
}
