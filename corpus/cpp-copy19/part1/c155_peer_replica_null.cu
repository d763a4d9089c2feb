// case: model-replica broadcast that peer-copies weights from GPU 0 into d_replica, a pointer initialized to nullptr whose cudaMalloc on device 1 was never written
// expect: unallocated_pointer=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                        \
    do {                                                                     \
        cudaError_t e_ = (x);                                                \
        if (e_ != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));    \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

constexpr size_t kParams = 25'000'000;

int main()
{
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        std::puts("replication needs two devices");
        return 0;
    }

    std::vector<float> h_weights(kParams);
    for (size_t i = 0; i < kParams; ++i) h_weights[i] = float(i % 4093) * 1e-4f;

    float *d_master = nullptr;
    float *d_replica = nullptr;

    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMalloc(&d_master, kParams * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_master, h_weights.data(), kParams * sizeof(float), cudaMemcpyHostToDevice));

    int can_access = 0;
    CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, 1, 0));
    CUDA_CHECK(cudaSetDevice(1));
    if (can_access) CUDA_CHECK(cudaDeviceEnablePeerAccess(0, 0));

    CUDA_CHECK(cudaMemcpyPeer(d_replica, 1, d_master, 0, kParams * sizeof(float))); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("replicated %zu parameters (peer access: %d)\n", kParams, can_access);

    CUDA_CHECK(cudaFree(d_replica));
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(d_master));
    return 0;
}
