// case: A four-stream copy/compute/copy pipeline over pinned chunks never checks its per-chunk kernel launches before the stream synchronizations, and drops cudaStreamDestroy's status in cleanup.
// expect: unchecked_cuda_result=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t e = (call);                                                \
        if (e != cudaSuccess) {                                                \
            fprintf(stderr, "line %d: %s\n", __LINE__, cudaGetErrorString(e)); \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

__global__ void gamma_correct(float* px, int n, float inv_gamma) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) px[i] = powf(px[i], inv_gamma);
}

int main() {
    const int kStreams = 4;
    const int chunk = 1 << 20;
    const int n = kStreams * chunk;
    const size_t chunk_bytes = chunk * sizeof(float);

    float* h_pixels = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_pixels, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_pixels[i] = float(i % 256) / 255.0f;

    float* d_pixels = nullptr;
    CUDA_CHECK(cudaMalloc(&d_pixels, n * sizeof(float)));

    std::vector<cudaStream_t> streams(kStreams);
    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamCreate(&streams[s]));

    for (int s = 0; s < kStreams; ++s) {
        const int off = s * chunk;
        CUDA_CHECK(cudaMemcpyAsync(d_pixels + off, h_pixels + off, chunk_bytes,
                                   cudaMemcpyHostToDevice, streams[s]));
        gamma_correct<<<(chunk + 255) / 256, 256, 0, streams[s]>>>(d_pixels + off, chunk, 1.0f / 2.2f);  // EXPECT: unchecked_cuda_result
        CUDA_CHECK(cudaMemcpyAsync(h_pixels + off, d_pixels + off, chunk_bytes,
                                   cudaMemcpyDeviceToHost, streams[s]));
    }
    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamSynchronize(streams[s]));

    double mean = 0.0;
    for (int i = 0; i < n; ++i) mean += h_pixels[i];
    printf("mean corrected value: %.4f\n", mean / n);

    for (int s = 0; s < kStreams; ++s) {
        cudaStreamDestroy(streams[s]);  // EXPECT: unchecked_cuda_result
    }
    CUDA_CHECK(cudaFree(d_pixels));
    CUDA_CHECK(cudaFreeHost(h_pixels));
    return 0;
}
