// case: 8th-order finite-difference stencil whose coefficients go to __constant__ memory with sizeof of the symbol, and whose second half is refreshed at a symbol offset that still fits
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define RADIUS 4
#define NCOEF (2 * RADIUS)
#define NPTS (1 << 22)

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s\n", cudaGetErrorString(e));            \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

// c_coef[0..RADIUS) : first-derivative weights, c_coef[RADIUS..2*RADIUS) : damping weights
__constant__ float c_coef[NCOEF];

__global__ void derivative(const float *f, float *df, int n, float inv_h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < RADIUS || i >= n - RADIUS) return;
    float acc = 0.0f;
    for (int k = 1; k <= RADIUS; ++k)
        acc += c_coef[k - 1] * (f[i + k] - f[i - k]) * c_coef[RADIUS + k - 1];
    df[i] = acc * inv_h;
}

int main()
{
    const float weights[NCOEF] = {4.f / 5, -1.f / 5, 4.f / 105, -1.f / 280, 1.f, 1.f, 1.f, 1.f};
    const float damping[RADIUS] = {1.0f, 0.98f, 0.95f, 0.9f};

    float *h_f = (float *)std::malloc(NPTS * sizeof(float));
    float *h_df = (float *)std::malloc(NPTS * sizeof(float));
    for (int i = 0; i < NPTS; ++i) h_f[i] = 0.5f * float(i) * float(i) / NPTS;

    float *d_f, *d_df;
    CUDA_CHECK(cudaMalloc(&d_f, NPTS * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_df, NPTS * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_df, 0, NPTS * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_f, h_f, NPTS * sizeof(float), cudaMemcpyHostToDevice));

    CUDA_CHECK(cudaMemcpyToSymbol(c_coef, weights, sizeof(c_coef)));
    CUDA_CHECK(cudaMemcpyToSymbol(c_coef, damping, RADIUS * sizeof(float), RADIUS * sizeof(float)));

    derivative<<<NPTS / 256, 256>>>(d_f, d_df, NPTS, 1.0f);
    CUDA_CHECK(cudaMemcpy(h_df, d_df, NPTS * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("df[1000] = %f\n", h_df[1000]);

    CUDA_CHECK(cudaFree(d_f));
    CUDA_CHECK(cudaFree(d_df));
    std::free(h_f);
    std::free(h_df);
    return 0;
}
