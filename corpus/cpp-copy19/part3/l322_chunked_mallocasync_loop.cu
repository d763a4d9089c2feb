// case: a chunked log-transform pipeline calls cudaMallocAsync for a temporary in every chunk iteration but issues cudaFreeAsync once after the loop, so every earlier chunk's temporary is lost
// expect: device_memory_leak=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                       \
    do {                                                                  \
        cudaError_t e = call;                                             \
        if (e != cudaSuccess) {                                           \
            fprintf(stderr, "%s (%d): %s\n", __FILE__, __LINE__,          \
                    cudaGetErrorString(e));                               \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

static constexpr size_t kTotal = 64u << 20;   // floats
static constexpr size_t kChunk = 4u << 20;    // floats per chunk

__global__ void log1p_kernel(const float* in, float* tmp, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) tmp[i] = log1pf(fabsf(in[i]));
}

__global__ void scale_kernel(const float* tmp, float* out, float s, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = s * tmp[i];
}

int main() {
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    float *h_in, *h_out, *d_in, *d_out;
    CHECK(cudaMallocHost(&h_in, kChunk * sizeof(float)));
    CHECK(cudaMallocHost(&h_out, kChunk * sizeof(float)));
    CHECK(cudaMalloc(&d_in, kChunk * sizeof(float)));
    CHECK(cudaMalloc(&d_out, kChunk * sizeof(float)));

    double checksum = 0.0;
    float* d_tmp = nullptr;
    for (size_t off = 0; off < kTotal; off += kChunk) {
        for (size_t i = 0; i < kChunk; ++i) h_in[i] = (float)((off + i) % 1000) - 500.f;

        CHECK(cudaMallocAsync(&d_tmp, kChunk * sizeof(float), stream)); // EXPECT: device_memory_leak
        CHECK(cudaMemcpyAsync(d_in, h_in, kChunk * sizeof(float), cudaMemcpyHostToDevice, stream));
        log1p_kernel<<<(kChunk + 255) / 256, 256, 0, stream>>>(d_in, d_tmp, kChunk);
        scale_kernel<<<(kChunk + 255) / 256, 256, 0, stream>>>(d_tmp, d_out, 0.5f, kChunk);
        CHECK(cudaMemcpyAsync(h_out, d_out, kChunk * sizeof(float), cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));

        for (size_t i = 0; i < kChunk; ++i) checksum += h_out[i];
    }
    CHECK(cudaFreeAsync(d_tmp, stream));
    CHECK(cudaStreamSynchronize(stream));
    printf("checksum = %.3f\n", checksum);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
