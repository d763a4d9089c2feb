// case: stream-ordered scratch workspace from cudaMallocAsync (WS_BYTES bytes) cleared with cudaMemsetAsync(WS_BYTES * sizeof(float)), treating a byte count as an element count
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t err = (call);                                           \
        if (err != cudaSuccess) {                                           \
            std::fprintf(stderr, "%s (%d)\n", cudaGetErrorString(err), __LINE__); \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

constexpr int kN = 1 << 20;
constexpr int kBlock = 256;
constexpr int kBlocks = kN / kBlock;
constexpr size_t WS_BYTES = kBlocks * sizeof(float);

__global__ void block_sums(const float *in, float *partial)
{
    __shared__ float s[kBlock];
    int i = blockIdx.x * kBlock + threadIdx.x;
    s[threadIdx.x] = in[i];
    __syncthreads();
    for (int stride = kBlock / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] += s[0];
}

__global__ void final_sum(const float *partial, float *out, int n)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    float acc = 0.f;
    for (int i = 0; i < n; ++i) acc += partial[i];
    *out = acc;
}

int main()
{
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));

    float *h_in, *h_out;
    CUDA_CHECK(cudaMallocHost(&h_in, kN * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out, sizeof(float)));
    for (int i = 0; i < kN; ++i) h_in[i] = 1.0f / float(1 + (i & 15));

    float *d_in, *d_ws, *d_out;
    CUDA_CHECK(cudaMallocAsync(&d_in, kN * sizeof(float), s));
    CUDA_CHECK(cudaMallocAsync(&d_ws, WS_BYTES, s));
    CUDA_CHECK(cudaMallocAsync(&d_out, sizeof(float), s));

    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, kN * sizeof(float), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemsetAsync(d_ws, 0, WS_BYTES * sizeof(float), s)); // EXPECT: copy_out_of_bounds
    block_sums<<<kBlocks, kBlock, 0, s>>>(d_in, d_ws);
    final_sum<<<1, 32, 0, s>>>(d_ws, d_out, kBlocks);
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, sizeof(float), cudaMemcpyDeviceToHost, s));

    CUDA_CHECK(cudaFreeAsync(d_in, s));
    CUDA_CHECK(cudaFreeAsync(d_ws, s));
    CUDA_CHECK(cudaFreeAsync(d_out, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::printf("sum = %f\n", *h_out);

    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
