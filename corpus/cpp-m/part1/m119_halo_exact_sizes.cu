// case: A 1D domain-decomposed advection step copies the interior into a halo-padded device field at an offset, fills the halos with exact-size copies, and moves a pitched 2D tile with cudaMemcpy2D; every constant count equals or is below what its side holds; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

#define N_INTERIOR 65536
#define HALO 4
constexpr int kPadded = N_INTERIOR + 2 * HALO;
constexpr int kTileW = 256, kTileH = 128;

__global__ void upwind(const float* __restrict__ u, float* __restrict__ u_next, int n, float c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x + HALO;
    if (i >= n + HALO) return;
    u_next[i] = u[i] - c * (u[i] - u[i - 1]);
}

__global__ void scale_tile(float* tile, size_t pitch, int w, int h, float s) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(tile) + y * pitch);
    row[x] *= s;
}

int main() {
    float h_u[N_INTERIOR];
    float h_left[HALO], h_right[HALO];
    for (int i = 0; i < N_INTERIOR; ++i) h_u[i] = (i > N_INTERIOR / 4 && i < N_INTERIOR / 2) ? 1.0f : 0.0f;
    for (int k = 0; k < HALO; ++k) { h_left[k] = 0.0f; h_right[k] = 0.0f; }

    float *d_u = nullptr, *d_next = nullptr;
    CUDA_CHECK(cudaMalloc(&d_u, kPadded * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_next, kPadded * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_next, 0, kPadded * sizeof(float)));

    // interior, then the two ghost regions from the neighbours' boundary values
    CUDA_CHECK(cudaMemcpy(d_u + HALO, h_u, N_INTERIOR * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_u, h_left, sizeof(h_left), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_u + HALO + N_INTERIOR, h_right, sizeof(h_right), cudaMemcpyHostToDevice));

    upwind<<<(N_INTERIOR + 255) / 256, 256>>>(d_u, d_next, N_INTERIOR, 0.5f);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(h_u, d_next + HALO, sizeof(h_u), cudaMemcpyDeviceToHost));
    // send our boundary cells to the neighbours: the last HALO interior cells
    CUDA_CHECK(cudaMemcpy(h_right, d_next + N_INTERIOR, HALO * sizeof(float), cudaMemcpyDeviceToHost));
    double mass = 0.0;
    for (int i = 0; i < N_INTERIOR; ++i) mass += h_u[i];
    std::printf("mass after one step: %.3f, right boundary %.3f\n", mass, h_right[HALO - 1]);

    // Pitched tile: host rows are tightly packed, device rows are padded.
    std::vector<float> tile(kTileW * kTileH, 2.0f);
    float* d_tile = nullptr;
    size_t pitch = 0;
    CUDA_CHECK(cudaMallocPitch(&d_tile, &pitch, kTileW * sizeof(float), kTileH));
    CUDA_CHECK(cudaMemcpy2D(d_tile, pitch, tile.data(), kTileW * sizeof(float),
                            kTileW * sizeof(float), kTileH, cudaMemcpyHostToDevice));
    scale_tile<<<dim3(kTileW / 32, kTileH / 8), dim3(32, 8)>>>(d_tile, pitch, kTileW, kTileH, 0.5f);
    CUDA_CHECK(cudaMemcpy2D(tile.data(), kTileW * sizeof(float), d_tile, pitch,
                            kTileW * sizeof(float), kTileH, cudaMemcpyDeviceToHost));
    std::printf("tile[0] = %.2f (pitch %zu bytes)\n", tile[0], pitch);

    CUDA_CHECK(cudaFree(d_tile));
    CUDA_CHECK(cudaFree(d_next));
    CUDA_CHECK(cudaFree(d_u));
    return 0;
}
