// case: A particle-mesh deposit moves data with every copy direction matching its memory: cudaMemcpyDefault between mixed pointers, explicit kinds on pinned and device buffers, device-to-device between two cudaMalloc buffers, and host/device kinds on managed memory (valid on either side); correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kGrid = 256;            // cells per side
constexpr int kParticles = 1 << 20;

__global__ void deposit_cic(const float2* __restrict__ pos, int n, float* __restrict__ rho) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gx = pos[i].x * kGrid, gy = pos[i].y * kGrid;
    int ix = int(gx), iy = int(gy);
    float fx = gx - ix, fy = gy - iy;
    int x1 = (ix + 1) % kGrid, y1 = (iy + 1) % kGrid;
    ix %= kGrid; iy %= kGrid;
    atomicAdd(&rho[iy * kGrid + ix], (1 - fx) * (1 - fy));
    atomicAdd(&rho[iy * kGrid + x1], fx * (1 - fy));
    atomicAdd(&rho[y1 * kGrid + ix], (1 - fx) * fy);
    atomicAdd(&rho[y1 * kGrid + x1], fx * fy);
}

int main() {
    const size_t grid_bytes = size_t(kGrid) * kGrid * sizeof(float);

    float2* h_pos = nullptr;  // pinned
    CUDA_CHECK(cudaMallocHost(&h_pos, kParticles * sizeof(float2)));
    for (int i = 0; i < kParticles; ++i)
        h_pos[i] = make_float2(float((i * 7919) % 10007) / 10007.0f, float((i * 104729) % 10009) / 10009.0f);

    float2* d_pos = nullptr;
    float *d_rho = nullptr, *d_rho_prev = nullptr;
    CUDA_CHECK(cudaMalloc(&d_pos, kParticles * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&d_rho, grid_bytes));
    CUDA_CHECK(cudaMalloc(&d_rho_prev, grid_bytes));

    // Managed background field: filled on the host, copied with explicit kinds.
    float* background = nullptr;
    CUDA_CHECK(cudaMallocManaged(&background, grid_bytes));
    for (int c = 0; c < kGrid * kGrid; ++c) background[c] = 0.25f;

    CUDA_CHECK(cudaMemcpy(d_pos, h_pos, kParticles * sizeof(float2), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_rho, background, grid_bytes, cudaMemcpyHostToDevice));
    deposit_cic<<<kParticles / 256, 256>>>(d_pos, kParticles, d_rho);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(d_rho_prev, d_rho, grid_bytes, cudaMemcpyDeviceToDevice));

    // Second deposit with shifted particles, reusing the pinned buffer.
    for (int i = 0; i < kParticles; ++i) h_pos[i].x = h_pos[i].x * 0.5f + 0.25f;
    CUDA_CHECK(cudaMemcpy(d_pos, h_pos, kParticles * sizeof(float2), cudaMemcpyDefault));
    deposit_cic<<<kParticles / 256, 256>>>(d_pos, kParticles, d_rho);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> rho(size_t(kGrid) * kGrid);
    CUDA_CHECK(cudaMemcpy(rho.data(), d_rho, grid_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(background, d_rho_prev, grid_bytes, cudaMemcpyDeviceToHost));

    double mass_now = 0.0, mass_prev = 0.0;
    for (int c = 0; c < kGrid * kGrid; ++c) {
        mass_now += rho[c];
        mass_prev += background[c];
    }
    std::printf("mass after first deposit %.1f, after second %.1f\n", mass_prev, mass_now);

    CUDA_CHECK(cudaFree(background));
    CUDA_CHECK(cudaFree(d_rho_prev));
    CUDA_CHECK(cudaFree(d_rho));
    CUDA_CHECK(cudaFree(d_pos));
    CUDA_CHECK(cudaFreeHost(h_pos));
    return 0;
}
