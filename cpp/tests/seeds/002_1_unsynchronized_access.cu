#include <cuda_runtime.h>

int main() {
    int *h_data, *d_data;
    int size = 1024;

    cudaMallocHost((void**)&h_data, size * sizeof(int));
    cudaMalloc((void**)&d_data, size * sizeof(int));

    // Initialize host data
    for (int i = 0; i < size; ++i) h_data[i] = i;

    cudaMemcpyAsync(d_data, h_data, size * sizeof(int), cudaMemcpyHostToDevice);

    // INCORRECT: Accessing d_data without synchronization
    for (int i = 0; i < size; ++i) {
        printf("Value at index %d: %d\n", i, d_data[i]); // Potentially undefined behavior
    }

    cudaFree(d_data);
    cudaFreeHost(h_data);
    return 0;
}
