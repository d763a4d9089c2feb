// case: a four-stream chunked H2D/kernel/D2H overlap pipeline whose host input and output are std::vector (pageable), so each cudaMemcpyAsync is staged by the driver and neither direction overlaps; synchronization is otherwise correct.
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

constexpr int kStreams = 4;
constexpr size_t kN = size_t(1) << 26;             // 256 MiB of floats
constexpr size_t kChunk = kN / kStreams;

__global__ void poly_eval(const float* x, float* y, size_t n) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = ((0.25f * v + 0.5f) * v - 1.f) * v + 2.f;
    }
}

int main() {
    std::vector<float> host_in(kN), host_out(kN);
    for (size_t i = 0; i < kN; ++i) host_in[i] = float(i % 1000) * 1e-3f;

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, kN * sizeof(float)));

    cudaStream_t streams[kStreams];
    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));

    const unsigned blocks = unsigned((kChunk + 255) / 256);
    for (int s = 0; s < kStreams; ++s) {
        const size_t off = size_t(s) * kChunk;
        CUDA_CHECK(cudaMemcpyAsync(d_in + off, host_in.data() + off, kChunk * sizeof(float), cudaMemcpyHostToDevice, streams[s])); // EXPECT: pageable_async_copy
        poly_eval<<<blocks, 256, 0, streams[s]>>>(d_in + off, d_out + off, kChunk);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(host_out.data() + off, d_out + off, kChunk * sizeof(float), cudaMemcpyDeviceToHost, streams[s])); // EXPECT: pageable_async_copy
    }
    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamSynchronize(streams[s]));

    double acc = 0.0;
    for (size_t i = 0; i < kN; i += 4096) acc += host_out[i];
    printf("sampled sum %.3f\n", acc);

    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}
