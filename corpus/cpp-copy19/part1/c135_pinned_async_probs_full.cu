// case: stream inference pipeline whose pinned host output holds the full BATCH x CLASSES probability matrix that the async readback copies
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t err_ = (call);                                          \
        if (err_ != cudaSuccess) {                                          \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int BATCH = 64;
constexpr int CLASSES = 1000;
constexpr size_t kMatBytes = size_t(BATCH) * CLASSES * sizeof(float);

__global__ void sigmoid(const float *in, float *out, size_t n)
{
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = 1.0f / (1.0f + __expf(-in[i]));
}

struct PinnedPair {
    float *in = nullptr;
    float *out = nullptr;
    PinnedPair() {
        CUDA_CHECK(cudaMallocHost(&in, kMatBytes));
        CUDA_CHECK(cudaMallocHost(&out, kMatBytes));
    }
    ~PinnedPair() {
        cudaFreeHost(in);
        cudaFreeHost(out);
    }
};

int main()
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    {
        PinnedPair host;
        for (size_t i = 0; i < size_t(BATCH) * CLASSES; ++i) host.in[i] = float(int(i % 21) - 10) * 0.3f;

        float *d_in, *d_out;
        CUDA_CHECK(cudaMalloc(&d_in, kMatBytes));
        CUDA_CHECK(cudaMalloc(&d_out, kMatBytes));

        CUDA_CHECK(cudaMemcpyAsync(d_in, host.in, kMatBytes, cudaMemcpyHostToDevice, stream));
        sigmoid<<<(BATCH * CLASSES + 255) / 256, 256, 0, stream>>>(d_in, d_out, size_t(BATCH) * CLASSES);
        CUDA_CHECK(cudaMemcpyAsync(host.out, d_out, kMatBytes, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));

        int positives = 0;
        for (size_t i = 0; i < size_t(BATCH) * CLASSES; ++i) positives += host.out[i] > 0.5f;
        std::printf("%d activations above 0.5\n", positives);

        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
