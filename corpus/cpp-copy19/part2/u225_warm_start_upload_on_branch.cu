// case: an iterative smoother uploads a warm-start guess only when one is given on the command line; the init kernel reads d_guess only under the same flag, and some path writes it first.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

#define NPTS 262144
#define SWEEPS 64

__global__ void init_solution(float* x, const float* guess, int use_guess, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = use_guess ? guess[i] : 0.0f;
}

__global__ void smooth_step(const float* x, const float* b, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = i > 0 ? x[i - 1] : 0.0f;
    float r = i < n - 1 ? x[i + 1] : 0.0f;
    y[i] = 0.5f * (l + r + b[i]);
}

int main(int argc, char** argv)
{
    const bool warm = argc > 1;
    std::vector<float> b(NPTS, 1e-4f), guess(NPTS), result(NPTS);
    if (warm) {
        float g = static_cast<float>(std::atof(argv[1]));
        for (int i = 0; i < NPTS; ++i) guess[i] = g;
    }

    float *d_x, *d_y, *d_b, *d_guess;
    CUDA_CHECK(cudaMalloc(&d_x, NPTS * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, NPTS * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, NPTS * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_guess, NPTS * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_b, b.data(), NPTS * sizeof(float), cudaMemcpyHostToDevice));
    if (warm) {
        CUDA_CHECK(cudaMemcpy(d_guess, guess.data(), NPTS * sizeof(float), cudaMemcpyHostToDevice));
    }

    const int tpb = 256, nb = (NPTS + tpb - 1) / tpb;
    init_solution<<<nb, tpb>>>(d_x, d_guess, warm ? 1 : 0, NPTS);
    for (int s = 0; s < SWEEPS; ++s) {
        smooth_step<<<nb, tpb>>>(d_x, d_b, d_y, NPTS);
        smooth_step<<<nb, tpb>>>(d_y, d_b, d_x, NPTS);
    }
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(result.data(), d_x, NPTS * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("x[mid] = %g\n", result[NPTS / 2]);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_guess));
    return 0;
}
