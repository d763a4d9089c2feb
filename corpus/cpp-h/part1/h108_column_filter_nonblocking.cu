// case: Columnar scan filters a price column on a cudaStreamNonBlocking stream and copies the selection bitmap back with plain cudaMemcpy, which runs on the legacy default stream and does not wait for non-blocking streams, so the host counts a stale bitmap.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CUDA_CALL(f) do { cudaError_t st = (f); if (st != cudaSuccess) { \
    fprintf(stderr, "%s at %s:%d\n", cudaGetErrorString(st), __FILE__, __LINE__); exit(EXIT_FAILURE); } } while (0)

#define ROWS (1u << 24)
#define WORDS (ROWS / 32)

__global__ void filter_between(const int64_t* price, uint32_t* bitmap, int64_t lo, int64_t hi)
{
    unsigned w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= WORDS) return;
    uint32_t bits = 0;
    for (int b = 0; b < 32; ++b) {
        int64_t v = price[(size_t)w * 32 + b];
        bits |= (uint32_t)(v >= lo && v < hi) << b;
    }
    bitmap[w] = bits;
}

static int64_t* load_column(size_t rows)
{
    int64_t* col = (int64_t*)malloc(rows * sizeof(int64_t));
    for (size_t i = 0; i < rows; ++i) col[i] = (int64_t)((i * 48271u) % 100000u);
    return col;
}

int main(int argc, char** argv)
{
    int64_t lo = argc > 1 ? atoll(argv[1]) : 25000;
    int64_t hi = argc > 2 ? atoll(argv[2]) : 26000;

    int64_t* h_price = load_column(ROWS);
    uint32_t* h_bitmap = (uint32_t*)malloc(WORDS * sizeof(uint32_t));

    int64_t* d_price; uint32_t* d_bitmap;
    cudaStream_t scan;
    CUDA_CALL(cudaStreamCreateWithFlags(&scan, cudaStreamNonBlocking));
    CUDA_CALL(cudaMalloc(&d_price, ROWS * sizeof(int64_t)));
    CUDA_CALL(cudaMalloc(&d_bitmap, WORDS * sizeof(uint32_t)));
    CUDA_CALL(cudaMemcpy(d_price, h_price, ROWS * sizeof(int64_t), cudaMemcpyHostToDevice));

    filter_between<<<(WORDS + 255) / 256, 256, 0, scan>>>(d_price, d_bitmap, lo, hi);
    CUDA_CALL(cudaGetLastError());

    // legacy default stream: does not order after `scan`
    CUDA_CALL(cudaMemcpy(h_bitmap, d_bitmap, WORDS * sizeof(uint32_t), cudaMemcpyDeviceToHost));

    unsigned long long matches = 0;
    for (unsigned w = 0; w < WORDS; ++w) matches += __builtin_popcount(h_bitmap[w]);
    printf("%llu rows with %lld <= price < %lld\n", matches, (long long)lo, (long long)hi);

    CUDA_CALL(cudaStreamSynchronize(scan));
    cudaFree(d_bitmap);
    cudaFree(d_price);
    cudaStreamDestroy(scan);
    free(h_bitmap);
    free(h_price);
    return 0;
}
