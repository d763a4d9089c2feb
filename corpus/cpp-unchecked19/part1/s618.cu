// case: A multi-stream batch normaliser checks each launch with cudaPeekAtLastError assigned to a variable before the checked stream synchronizations.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(e_));                                   \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

__global__ void normalise_rows(float* rows, int row_len, int nrows) {
    int r = blockIdx.x;
    if (r >= nrows) return;
    float* row = rows + size_t(r) * row_len;
    __shared__ float total;
    if (threadIdx.x == 0) {
        total = 0.0f;
        for (int i = 0; i < row_len; ++i) total += row[i];
    }
    __syncthreads();
    for (int i = threadIdx.x; i < row_len; i += blockDim.x) row[i] /= total;
}

int main() {
    const int kStreams = 3, rows_per_batch = 4096, row_len = 128;
    const size_t batch_elems = size_t(rows_per_batch) * row_len;
    const size_t batch_bytes = batch_elems * sizeof(float);

    float* h_data = nullptr;
    CUDA_CHECK(cudaHostAlloc(&h_data, kStreams * batch_bytes, cudaHostAllocDefault));
    for (size_t i = 0; i < kStreams * batch_elems; ++i) h_data[i] = 1.0f + float(i % 5);
    float* d_data = nullptr;
    CUDA_CHECK(cudaMalloc(&d_data, kStreams * batch_bytes));

    cudaStream_t streams[kStreams];
    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamCreate(&streams[s]));

    for (int s = 0; s < kStreams; ++s) {
        float* d_batch = d_data + s * batch_elems;
        float* h_batch = h_data + s * batch_elems;
        CUDA_CHECK(cudaMemcpyAsync(d_batch, h_batch, batch_bytes, cudaMemcpyHostToDevice, streams[s]));
        normalise_rows<<<rows_per_batch, 128, 0, streams[s]>>>(d_batch, row_len, rows_per_batch);
        cudaError_t launch = cudaPeekAtLastError();
        if (launch != cudaSuccess) {
            fprintf(stderr, "batch %d: %s\n", s, cudaGetErrorString(launch));
            exit(1);
        }
        CUDA_CHECK(cudaMemcpyAsync(h_batch, d_batch, batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamSynchronize(streams[s]));

    double row0 = 0.0;
    for (int i = 0; i < row_len; ++i) row0 += h_data[i];
    printf("first row sums to %.4f\n", row0);

    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFreeHost(h_data));
    return 0;
}
