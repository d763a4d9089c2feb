// case: a columnar scan runs the predicate kernel on a compute stream, makes a copy stream wait on an event before the pinned readback, and the host waits on the copy stream's event with cudaEventSynchronize before counting matches.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>

#define CUDA_CHECK(call) do { const cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

struct ColumnBatch {
    const int64_t* price;
    const int32_t* qty;
    uint8_t* match;
    int rows;
};

__global__ void where_price_qty(ColumnBatch b, int64_t min_price, int32_t min_qty) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < b.rows) b.match[i] = b.price[i] >= min_price && b.qty[i] >= min_qty;
}

__global__ void fill_columns(int64_t* price, int32_t* qty, int rows) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows) { price[i] = (i * 7919ll) % 100000; qty[i] = (i * 31) % 500; }
}

int main() {
    const int rows = 32 << 20;
    int64_t* d_price; int32_t* d_qty; uint8_t* d_match; uint8_t* h_match;
    CUDA_CHECK(cudaMalloc(&d_price, rows * sizeof(int64_t)));
    CUDA_CHECK(cudaMalloc(&d_qty, rows * sizeof(int32_t)));
    CUDA_CHECK(cudaMalloc(&d_match, rows));
    CUDA_CHECK(cudaMallocHost(&h_match, rows));

    cudaStream_t compute, copy;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    cudaEvent_t filtered, landed;
    CUDA_CHECK(cudaEventCreateWithFlags(&filtered, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&landed, cudaEventDisableTiming));

    fill_columns<<<(rows + 255) / 256, 256, 0, compute>>>(d_price, d_qty, rows);
    ColumnBatch batch{d_price, d_qty, d_match, rows};
    where_price_qty<<<(rows + 255) / 256, 256, 0, compute>>>(batch, 50000, 100);
    CUDA_CHECK(cudaEventRecord(filtered, compute));

    CUDA_CHECK(cudaStreamWaitEvent(copy, filtered, 0));
    CUDA_CHECK(cudaMemcpyAsync(h_match, d_match, rows, cudaMemcpyDeviceToHost, copy));
    CUDA_CHECK(cudaEventRecord(landed, copy));
    CUDA_CHECK(cudaEventSynchronize(landed));

    long hits = 0;
    for (int i = 0; i < rows; ++i) hits += h_match[i];
    printf("%ld of %d rows match\n", hits, rows);

    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaEventDestroy(landed));
    CUDA_CHECK(cudaEventDestroy(filtered));
    CUDA_CHECK(cudaStreamDestroy(copy));
    CUDA_CHECK(cudaStreamDestroy(compute));
    CUDA_CHECK(cudaFreeHost(h_match));
    CUDA_CHECK(cudaFree(d_match));
    CUDA_CHECK(cudaFree(d_qty));
    CUDA_CHECK(cudaFree(d_price));
    return 0;
}
