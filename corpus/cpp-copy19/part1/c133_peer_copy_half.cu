// case: two-GPU split that peer-copies exactly the second half of the array (d_full0 + SHARD, SHARD floats) into the SHARD-float buffer on device 1
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                        \
    do {                                                                     \
        cudaError_t e_ = (x);                                                \
        if (e_ != cudaSuccess) {                                             \
            std::fprintf(stderr, "line %d: %s\n", __LINE__, cudaGetErrorString(e_)); \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

constexpr size_t TOTAL = 1 << 22;
constexpr size_t SHARD = TOTAL / 2;

__global__ void square(float *v, size_t n)
{
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}

int main()
{
    int ndev = 0;
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    if (ndev < 2) {
        std::printf("skipping: one device\n");
        return 0;
    }

    float *h_data;
    CUDA_CHECK(cudaMallocHost(&h_data, TOTAL * sizeof(float)));
    for (size_t i = 0; i < TOTAL; ++i) h_data[i] = float(i % 100) * 0.1f;

    float *d_full0, *d_shard1;
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMalloc(&d_full0, TOTAL * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_full0, h_data, TOTAL * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaSetDevice(1));
    CUDA_CHECK(cudaMalloc(&d_shard1, SHARD * sizeof(float)));
    CUDA_CHECK(cudaMemcpyPeer(d_shard1, 1, d_full0 + SHARD, 0, SHARD * sizeof(float)));

    square<<<(SHARD + 255) / 256, 256>>>(d_shard1, SHARD);
    CUDA_CHECK(cudaSetDevice(0));
    square<<<(SHARD + 255) / 256, 256>>>(d_full0, SHARD);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaSetDevice(1));
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_data + SHARD, d_shard1, SHARD * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMemcpy(h_data, d_full0, SHARD * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("h[1] = %f, h[SHARD + 1] = %f\n", h_data[1], h_data[SHARD + 1]);

    CUDA_CHECK(cudaFree(d_full0));
    CUDA_CHECK(cudaSetDevice(1));
    CUDA_CHECK(cudaFree(d_shard1));
    CUDA_CHECK(cudaFreeHost(h_data));
    return 0;
}
