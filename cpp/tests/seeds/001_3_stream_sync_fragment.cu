#include <cuda.h>
#include <iostream>

int main() {
    // ... (Memory allocation as in Example 2) ...

    cudaStream_t stream;
    cudaStreamCreate(&stream);

    cudaMemcpyAsync(d_data, h_data, size * sizeof(int), cudaMemcpyHostToDevice, stream);

    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        std::cerr << "CUDA error: " << cudaGetErrorString(err) << std::endl;
        return 1;
    }

    // ... further computations ...

    cudaStreamSynchronize(stream); //Explicit synchronization

    cudaStreamDestroy(stream);
    cudaFree(d_data);
    cudaFreeHost(h_data);
    return 0;
}
