#pragma once
#include <cuda_runtime.h>
#include <cstddef>

// Managed control block the host edits between batches: allocated attached to the host,
// so kernels on any stream leave it alone until it is attached to a stream.
struct BatchControl {
    int batch_id;
    int n_items;
    float threshold;
    int flags;
};

// Managed scratch owned by one stream: attached single to that stream only.
struct StreamScratch {
    cudaStream_t stream = nullptr;
    float* data = nullptr;
    size_t n = 0;

    void create(size_t count) {
        n = count;
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        cudaMallocManaged(&data, n * sizeof(float));
        cudaStreamAttachMemAsync(stream, data, 0, cudaMemAttachSingle);
        cudaStreamSynchronize(stream);
    }
    void destroy() {
        cudaStreamSynchronize(stream);
        cudaFree(data);
        cudaStreamDestroy(stream);
    }
};
