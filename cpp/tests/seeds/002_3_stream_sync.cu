#include <cuda_runtime.h>

int main() {
    int *h_data, *d_data;
    int size = 1024;
    cudaStream_t stream;

    cudaMallocHost((void**)&h_data, size * sizeof(int));
    cudaMalloc((void**)&d_data, size * sizeof(int));
    cudaStreamCreate(&stream);

    for (int i = 0; i < size; ++i) h_data[i] = i;

    cudaMemcpyAsync(d_data, h_data, size * sizeof(int), cudaMemcpyHostToDevice, stream);

    //Perform other operations while the copy is ongoing.  Note, this requires careful management to avoid data races.
    // ... some computationally intensive CPU task ...

    cudaStreamSynchronize(stream); //synchronize only this stream

    // Access d_data reliably
    for (int i = 0; i < size; ++i) {
      printf("Value at index %d: %d\n", i, d_data[i]);
    }

    cudaStreamDestroy(stream);
    cudaFree(d_data);
    cudaFreeHost(h_data);
    return 0;
}
