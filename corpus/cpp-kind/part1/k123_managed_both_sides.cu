// case: a particle-count reduction keeps its data in cudaMallocManaged memory and copies it with explicit kinds that name the managed buffers as host or device side alternately; managed memory never contradicts a direction.
// expect: none
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void countAbove(const float* v, int n, float thr, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && v[i] > thr) atomicAdd(count, 1);
}

int main() {
    const int n = 1 << 20;
    std::vector<float> samples(n);
    for (int i = 0; i < n; ++i) samples[i] = (i % 100) * 0.01f;

    float* m_vals;
    int* m_count;
    float* d_copy;
    cudaMallocManaged(&m_vals, n * sizeof(float));
    cudaMallocManaged(&m_count, sizeof(int));
    cudaMalloc(&d_copy, n * sizeof(float));

    // managed as the "device" destination of an upload
    cudaMemcpy(m_vals, samples.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    // managed as the "host" source of an upload into plain device memory
    cudaMemcpy(d_copy, m_vals, n * sizeof(float), cudaMemcpyHostToDevice);
    *m_count = 0;

    countAbove<<<(n + 255) / 256, 256>>>(d_copy, n, 0.5f, m_count);
    cudaDeviceSynchronize();

    // managed as the "device" source of a download into a vector
    cudaMemcpy(samples.data(), m_vals, n * sizeof(float), cudaMemcpyDeviceToHost);
    // managed as the "host" destination of a download from device memory
    cudaMemcpy(m_vals, d_copy, n * sizeof(float), cudaMemcpyDeviceToHost);

    printf("above threshold: %d\n", *m_count);
    cudaFree(m_vals);
    cudaFree(m_count);
    cudaFree(d_copy);
    return 0;
}
