// case: two-GPU data split where the shard buffer on device 1 holds half the array but the peer copy moves the whole array into it
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                        \
    do {                                                                     \
        cudaError_t e_ = (x);                                                \
        if (e_ != cudaSuccess) {                                             \
            std::fprintf(stderr, "error %d: %s\n", __LINE__, cudaGetErrorString(e_)); \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

constexpr size_t kTotal = 1 << 22;
constexpr size_t kShard = kTotal / 2;

__global__ void axpb(float *v, float a, float b, size_t n)
{
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) v[i] = a * v[i] + b;
}

int main()
{
    int ndev = 0;
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    if (ndev < 2) {
        std::printf("needs two GPUs\n");
        return 0;
    }

    float *h_data;
    CUDA_CHECK(cudaMallocHost(&h_data, kTotal * sizeof(float)));
    for (size_t i = 0; i < kTotal; ++i) h_data[i] = float(i & 1023);

    float *d_full0, *d_shard1;
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMalloc(&d_full0, kTotal * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_full0, h_data, kTotal * sizeof(float), cudaMemcpyHostToDevice));

    CUDA_CHECK(cudaSetDevice(1));
    CUDA_CHECK(cudaMalloc(&d_shard1, kShard * sizeof(float)));
    CUDA_CHECK(cudaMemcpyPeer(d_shard1, 1, d_full0, 0, kTotal * sizeof(float))); // EXPECT: copy_out_of_bounds

    axpb<<<(kShard + 255) / 256, 256>>>(d_shard1, 2.0f, 1.0f, kShard);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_data + kShard, d_shard1, kShard * sizeof(float), cudaMemcpyDeviceToHost));

    std::printf("h[%zu] = %f\n", kShard, h_data[kShard]);

    CUDA_CHECK(cudaFree(d_shard1));
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(d_full0));
    CUDA_CHECK(cudaFreeHost(h_data));
    return 0;
}
