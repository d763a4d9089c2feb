// case: A multi-GPU fill splits a buffer across all devices and checks its work, but drops cudaSetDevice's status in the launch loop and in the cleanup loop.
// expect: unchecked_cuda_result=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(e_));                                   \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

__global__ void iota_scaled(float* out, int n, int offset, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = scale * float(offset + i);
}

int main() {
    int ndev = 0;
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    if (ndev == 0) {
        fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    const int total = 1 << 24;
    const int per_dev = (total + ndev - 1) / ndev;
    std::vector<float> result(size_t(per_dev) * ndev);
    std::vector<float*> d_parts(ndev, nullptr);

    for (int dev = 0; dev < ndev; ++dev) {
        cudaSetDevice(dev);  // EXPECT: unchecked_cuda_result
        CUDA_CHECK(cudaMalloc(&d_parts[dev], per_dev * sizeof(float)));
        iota_scaled<<<(per_dev + 255) / 256, 256>>>(d_parts[dev], per_dev, dev * per_dev, 0.5f);
        CUDA_CHECK(cudaGetLastError());
    }
    for (int dev = 0; dev < ndev; ++dev) {
        CUDA_CHECK(cudaSetDevice(dev));
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(result.data() + size_t(dev) * per_dev, d_parts[dev],
                              per_dev * sizeof(float), cudaMemcpyDeviceToHost));
    }

    printf("%d devices, last value %.1f\n", ndev, result[total - 1]);

    for (int dev = 0; dev < ndev; ++dev) {
        cudaSetDevice(dev);  // EXPECT: unchecked_cuda_result
        CUDA_CHECK(cudaFree(d_parts[dev]));
    }
    return 0;
}
