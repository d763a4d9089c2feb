// case: A tiled matrix transpose runs its tiles on streams made with plain cudaStreamCreate (blocking streams) and reads the result with a plain cudaMemcpy, which runs on the legacy default stream and therefore waits for all blocking streams; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "CUDA: %s at %s:%d\n", cudaGetErrorString(e_),    \
                         __FILE__, __LINE__);                                      \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kTile = 32;
constexpr int kRows = 8;
constexpr int kStreams = 4;

__global__ void transpose_band(const float* __restrict__ in, float* __restrict__ out, int n, int row0) {
    __shared__ float tile[kTile][kTile + 1];
    int x = blockIdx.x * kTile + threadIdx.x;
    int y = row0 + blockIdx.y * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kRows)
        if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * n + x];
    __syncthreads();
    x = row0 + blockIdx.y * kTile + threadIdx.x;
    y = blockIdx.x * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kRows)
        if (x < n && y + j < n) out[size_t(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
    const int n = 4096;
    const size_t bytes = size_t(n) * n * sizeof(float);
    std::vector<float> h_in(size_t(n) * n), h_out(size_t(n) * n);
    for (size_t i = 0; i < h_in.size(); ++i) h_in[i] = float(i % 9973);

    float *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));

    cudaStream_t streams[kStreams];
    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamCreate(&streams[s]));

    const int band = n / kStreams;
    dim3 block(kTile, kRows);
    for (int s = 0; s < kStreams; ++s) {
        dim3 grid(n / kTile, band / kTile);
        transpose_band<<<grid, block, 0, streams[s]>>>(d_in, d_out, n, s * band);
    }
    CUDA_CHECK(cudaGetLastError());

    // Legacy default stream: waits for the work of every blocking stream first.
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));

    size_t errors = 0;
    for (int r = 0; r < n; r += 61)
        for (int c = 0; c < n; c += 67)
            if (h_out[size_t(r) * n + c] != h_in[size_t(c) * n + r]) ++errors;
    std::printf("transpose %dx%d: %zu sampled mismatches\n", n, n, errors);

    for (int s = 0; s < kStreams; ++s) CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    return 0;
}
