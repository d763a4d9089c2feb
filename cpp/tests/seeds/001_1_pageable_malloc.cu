#include <cuda.h>
#include <iostream>

int main() {
    int *h_data;
    int size = 1024 * 1024;

    // Incorrect: Allocating pageable memory
    h_data = (int*)malloc(size * sizeof(int)); 

    int *d_data;
    cudaMalloc((void**)&d_data, size * sizeof(int));

    cudaMemcpyAsync(d_data, h_data, size * sizeof(int), cudaMemcpyHostToDevice, 0); //Potential crash here

    // ... further computations ...

    cudaFree(d_data);
    free(h_data);
    return 0;
}
