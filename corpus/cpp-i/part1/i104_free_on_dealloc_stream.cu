// case: a lookup table from cudaMallocAsync on the compute stream is read by a kernel there and then released with cudaFreeAsync on a separate deallocation stream that is not ordered after that kernel
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

constexpr int kLutSize = 4096;

__global__ void remap(const int* in, const float* lut, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lut[in[i] & (kLutSize - 1)];
}

struct StreamPair {
    cudaStream_t compute;
    cudaStream_t dealloc;
    StreamPair() {
        CUDA_CHECK(cudaStreamCreate(&compute));
        CUDA_CHECK(cudaStreamCreateWithFlags(&dealloc, cudaStreamNonBlocking));
    }
    ~StreamPair() {
        cudaStreamDestroy(dealloc);
        cudaStreamDestroy(compute);
    }
};

static void remap_pass(StreamPair& sp, const float* h_lut, const int* d_in, float* d_out, int n) {
    float* d_lut = nullptr;
    CUDA_CHECK(cudaMallocAsync(&d_lut, kLutSize * sizeof(float), sp.compute));
    CUDA_CHECK(cudaStreamSynchronize(sp.compute));
    CUDA_CHECK(cudaMemcpy(d_lut, h_lut, kLutSize * sizeof(float), cudaMemcpyHostToDevice));
    remap<<<(n + 127) / 128, 128, 0, sp.compute>>>(d_in, d_lut, d_out, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFreeAsync(d_lut, sp.dealloc)); // EXPECT: missing_sync
}

int main() {
    const int n = 1 << 20;
    StreamPair sp;
    int *h_idx = nullptr, *d_in = nullptr;
    float *h_lut = nullptr, *h_out = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_idx, n * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_lut, kLutSize * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_idx[i] = i * 31;
    for (int k = 0; k < kLutSize; ++k) h_lut[k] = 1.0f / (1 + k);

    CUDA_CHECK(cudaMemcpyAsync(d_in, h_idx, n * sizeof(int), cudaMemcpyHostToDevice, sp.compute));
    remap_pass(sp, h_lut, d_in, d_out, n);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, sp.compute));
    CUDA_CHECK(cudaStreamSynchronize(sp.compute));
    CUDA_CHECK(cudaStreamSynchronize(sp.dealloc));

    double checksum = 0.0;
    for (int i = 0; i < n; ++i) checksum += h_out[i];
    printf("checksum %.6f\n", checksum);

    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_lut));
    CUDA_CHECK(cudaFreeHost(h_idx));
    return 0;
}
