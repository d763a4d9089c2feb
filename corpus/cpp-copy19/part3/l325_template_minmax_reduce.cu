// case: a templated min/max reduction allocates its input copy and its two-element result buffer, copies the result back and frees only the input
// expect: device_memory_leak=1
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                            \
    do {                                                                            \
        cudaError_t _st = (expr);                                                   \
        if (_st != cudaSuccess) {                                                   \
            fprintf(stderr, "CUDA error '%s' in %s\n", cudaGetErrorString(_st), #expr); \
            exit(EXIT_FAILURE);                                                     \
        }                                                                           \
    } while (0)

template <typename T>
__global__ void minmax_kernel(const T* data, T* result, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMin(&result[0], data[i]);
        atomicMax(&result[1], data[i]);
    }
}

template <typename T>
std::pair<T, T> gpu_minmax(const std::vector<T>& host, T lo_init, T hi_init) {
    const int n = static_cast<int>(host.size());
    T* d_data = nullptr;
    T* d_result = nullptr;
    CUDA_CHECK(cudaMalloc(&d_data, n * sizeof(T)));
    CUDA_CHECK(cudaMalloc(&d_result, 2 * sizeof(T))); // EXPECT: device_memory_leak
    CUDA_CHECK(cudaMemcpy(d_data, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));

    T init[2] = {lo_init, hi_init};
    CUDA_CHECK(cudaMemcpy(d_result, init, sizeof(init), cudaMemcpyHostToDevice));
    minmax_kernel<T><<<(n + 255) / 256, 256>>>(d_data, d_result, n);
    CUDA_CHECK(cudaGetLastError());

    T out[2];
    CUDA_CHECK(cudaMemcpy(out, d_result, sizeof(out), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_data));
    return {out[0], out[1]};
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10000000;
    std::vector<int> samples(n);
    unsigned state = 12345u;
    for (int i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        samples[i] = (int)(state >> 8) - (1 << 23);
    }
    auto mm = gpu_minmax<int>(samples, INT_MAX, INT_MIN);
    printf("min = %d, max = %d\n", mm.first, mm.second);
    return 0;
}
