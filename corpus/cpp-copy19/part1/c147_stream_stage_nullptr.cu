// case: streamed normalization helper whose device staging pointer is initialized to nullptr and never allocated; the async upload into it and the kernel reading it both get null
// expect: unallocated_pointer=2
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s @ %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int kChunk = 1 << 16;

__global__ void normalize(const float *in, float *out, float mean, float inv_std, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (in[i] - mean) * inv_std;
}

static void process_chunk(cudaStream_t s, const float *h_pinned_in, float *h_pinned_out,
                          float mean, float inv_std)
{
    float *d_stage = nullptr;
    float *d_result = nullptr;
    CUDA_CHECK(cudaMalloc(&d_result, kChunk * sizeof(float)));

    CUDA_CHECK(cudaMemcpyAsync(d_stage, h_pinned_in, kChunk * sizeof(float), cudaMemcpyHostToDevice, s)); // EXPECT: unallocated_pointer
    normalize<<<kChunk / 256, 256, 0, s>>>(d_stage, d_result, mean, inv_std, kChunk); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaMemcpyAsync(h_pinned_out, d_result, kChunk * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    CUDA_CHECK(cudaFree(d_result));
}

int main()
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    float *h_in, *h_out;
    CUDA_CHECK(cudaMallocHost(&h_in, kChunk * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out, kChunk * sizeof(float)));

    double sum = 0.0, sq = 0.0;
    for (int i = 0; i < kChunk; ++i) {
        h_in[i] = float((i * 37) % 1000) * 0.01f;
        sum += h_in[i];
        sq += double(h_in[i]) * h_in[i];
    }
    float mean = float(sum / kChunk);
    float inv_std = 1.0f / float(std::sqrt(sq / kChunk - double(mean) * mean));

    process_chunk(stream, h_in, h_out, mean, inv_std);
    std::printf("z[0] = %f z[last] = %f\n", h_out[0], h_out[kChunk - 1]);

    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
