// case: column statistics computed by a kernel (and its launcher) defined in an included header; the stats buffer is copied back only after that launch wrote it.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "column_stats.cuh"

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

#define ROWS 20000
#define COLS 64

int main()
{
    std::vector<float> table(ROWS * COLS);
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c)
            table[r * COLS + c] = float((r * 31 + c * 7) % 100) / 10.0f;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    float* d_table;
    float2* d_stats;
    CUDA_CHECK(cudaMalloc(&d_table, ROWS * COLS * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_stats, COLS * sizeof(float2)));
    CUDA_CHECK(cudaMemcpy(d_table, table.data(), ROWS * COLS * sizeof(float), cudaMemcpyHostToDevice));

    launch_column_stats(d_table, ROWS, COLS, d_stats, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    float2 stats[COLS];
    CUDA_CHECK(cudaMemcpy(stats, d_stats, sizeof(stats), cudaMemcpyDeviceToHost));
    for (int c = 0; c < 4; ++c)
        std::printf("col %d: mean %.3f sd %.3f\n", c, stats[c].x, stats[c].y);

    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaFree(d_stats));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
