// case: zero-copy flags: a kernel writes through the device alias of mapped pinned memory (cudaHostAllocMapped + cudaHostGetDevicePointer) and the host counts the flags through the host pointer only after cudaDeviceSynchronize: correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void mark_above(const float* in, int* flags, float threshold, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = in[i] > threshold ? 1 : 0;
}

int main() {
    const int n = 1 << 20;
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));

    std::vector<float> values(n);
    for (int i = 0; i < n; ++i) values[i] = (float)((i * 37) % 1000) / 1000.0f;

    float* d_in;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, values.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    int* h_flags;
    int* d_flags;
    CHECK(cudaHostAlloc(&h_flags, n * sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&d_flags, h_flags, 0));

    mark_above<<<(n + 255) / 256, 256>>>(d_in, d_flags, 0.9f, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    long count = 0;
    for (int i = 0; i < n; ++i) count += h_flags[i];
    printf("%ld values above threshold\n", count);

    CHECK(cudaFreeHost(h_flags));
    CHECK(cudaFree(d_in));
    return 0;
}
