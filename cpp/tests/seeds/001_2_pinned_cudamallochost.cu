#include <cuda.h>
#include <iostream>

int main() {
    int *h_data;
    int size = 1024 * 1024;

    // Correct: Allocating pinned memory
    cudaMallocHost((void**)&h_data, size * sizeof(int));

    int *d_data;
    cudaMalloc((void**)&d_data, size * sizeof(int));

    cudaMemcpyAsync(d_data, h_data, size * sizeof(int), cudaMemcpyHostToDevice, 0);

    // ... further computations ...

    cudaFree(d_data);
    cudaFreeHost(h_data);
    return 0;
}
